// `tetrad bench collectives`: nccl-tests style all-reduce tables on either
// engine.
//
//   tetrad bench collectives --cluster sim:8x10Gbps,25us
//   mpirun -np 4 tetrad bench collectives --cluster mpi
//
// For every size (min to max, times --step-factor) and algorithm, every rank
// runs --warmup untimed and --iters timed all-reduces on one buffer reused
// throughout (fresh buffers would measure page faults). Each timed
// iteration starts after a barrier; its time is the slowest rank's, and the
// table shows the median over iterations, algbw = bytes / time and busbw =
// algbw · 2(n-1)/n (the bytes each rank's link carries, nccl-tests'
// convention). Every iteration fills each rank's buffer with small
// integers, so every algorithm's float32 sum is exact and the result is
// checked element by element (#wrong, summed over ranks and iterations; must
// be 0); payload-free runs carry no data and skip the check.
// --wire fp16|bf16 sends 2-byte values in every message
// (AllreduceOptions::wire): #wrong then counts elements outside the wire's
// documented error bound, 2p·u·(exact sum) with u = 2^-11 (fp16) or 2^-8
// (bf16), and sums of small integers stay exact while every partial sum is
// representable (fp16: up to 2048). Size, algbw and busbw count the float32
// bytes of the user's vector; the α–β model uses the wire's 2-byte element,
// so with a 16-bit wire time halves where β dominates. On a star cluster the
// α–β prediction (collectives/collective_cost.h) and simulated/model are
// shown (on a two-level cluster, for hierarchical all-reduce only); under MPI, when native
// (MPI_Allreduce) is among the algorithms, busbw / native busbw at the same size,
// and with --alpha-beta BW,LAT the α–β prediction for that network and
// real/model (e.g. on a shaped network of scripts/netlab.sh).
//
// Output on stdout from one process (rank 0); progress on stderr once a run
// takes more than a few seconds. Bad flags throw InvalidArgument.
//
// Flags and their validation: bench_collectives_plan.h; timing and
// verification: bench_collectives_run.h; this file registers the subcommand
// and prints the table.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "bench_collectives_plan.h"
#include "bench_collectives_run.h"
#include "command.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/net_model_choice.h"

namespace tetrad::app {
namespace {

using bench_collectives::BenchFlags;
using bench_collectives::BenchPlan;
using bench_collectives::makePlan;
using bench_collectives::measure;
using bench_collectives::Measurement;

void printHeader(const BenchPlan& plan, Transport& t) {
  std::printf(
      "# tetrad bench collectives: all-reduce (%s) of float32 with a %s wire on %d ranks, "
      "cluster %s\n",
      plan.op == ReduceOp::kSum ? "sum" : "avg", toString(plan.wire).c_str(), t.size(),
      plan.launch.cluster.c_str());
  if (plan.wire != WirePrecision::kFloat32) {
    std::printf(
        "# %s wire: messages carry 2 bytes per element; size and bandwidths count float32 "
        "bytes; #wrong counts errors beyond 2p*u*|sum|\n",
        toString(plan.wire).c_str());
  }
  std::printf(
      "# %d timed iterations after %d warm-up, median of the slowest rank; busbw = "
      "algbw * 2(n-1)/n\n",
      plan.iters, plan.warmup);
  if (!plan.netModel.empty()) std::printf("# network model: %s\n", plan.netModel.c_str());
  if (!plan.launch.simConfig.empty()) {
    std::string items;
    for (const std::string& item : plan.launch.simConfig) items += " " + item;
    std::printf("# SimGrid configuration:%s\n", items.c_str());
  }
  if (!t.carriesPayload()) {
    std::printf(
        "# payload-free: messages carry sizes only; results are not verified (#wrong "
        "shows -) and times are rank 0's\n");
  }
  if (plan.model) {
    std::printf("# alpha-beta model: alpha = %s, beta = 1/(%s)",
                formatSeconds(plan.model->alpha).c_str(),
                formatBandwidth(1.0 / plan.model->beta).c_str());
    if (!plan.model->latencyFactor.empty()) {
      std::printf(" with per-size latency factors %s and bandwidth factors %s",
                  plan.model->latencyFactor.toString().c_str(),
                  plan.model->bandwidthFactor.toString().c_str());
    }
    if (plan.twoLevel) {
      std::printf(
          " between nodes; inside nodes of %d ranks alpha = %s, beta = 1/(%s); "
          "hierarchical only",
          plan.model->ranksPerNode, formatSeconds(plan.model->intraAlpha).c_str(),
          formatBandwidth(1.0 / plan.model->intraBeta).c_str());
    }
    std::printf("\n");
  }
  std::printf("%12s %12s %13s %12s %11s %11s %7s", "size(B)", "count", "algorithm", "time(us)",
              "algbw(GB/s)", "busbw(GB/s)", "#wrong");
  if (plan.model) std::printf(" %12s %9s", "model(us)", plan.mpi ? "real/model" : "sim/model");
  if (plan.mpi) std::printf(" %10s", "vs-native");
  std::printf("\n");
  std::fflush(stdout);
}

void runBench(const BenchPlan& plan) {
  const auto wallStart = std::chrono::steady_clock::now();
  const size_t largest = plan.counts.back();
  // Payload-free ranks share one buffer that is never touched (no pages).
  std::unique_ptr<float[]> shared(plan.launch.payloadFree ? new float[largest] : nullptr);
  launch(plan.launch, [&](Transport& t) {
    const bool output = t.rank() == 0;
    std::vector<float> own(t.carriesPayload() ? largest : 0, 0.0f);  // touched once, reused
    std::span<float> buffer =
        t.carriesPayload() ? std::span<float>(own) : std::span<float>(shared.get(), largest);
    if (output) printHeader(plan, t);
    const int p = t.size();
    std::optional<AllreduceSelector> selector;
    if (plan.model) {
      selector.emplace(p, *plan.model, "bench");
      if (output) {
        const size_t at = autoSwitchCount(*selector);
        std::printf("# allreduce:auto: latency-bound (rd/tree) up to %zu floats (%s), %s above\n",
                    at, formatBytes(double(at) * sizeof(float)).c_str(),
                    toString(selector->choose(at + 1)).c_str());
      }
    }
    for (size_t s = 0; s < plan.counts.size(); ++s) {
      const size_t count = plan.counts[s];
      const double bytes = static_cast<double>(count) * sizeof(float);
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
      if (output && wall > 3) {
        std::fprintf(stderr, "[bench] size %zu/%zu (%s) after %.1f s\n", s + 1, plan.counts.size(),
                     formatBytes(bytes).c_str(), wall);
      }
      std::optional<double> nativeBusbw;
      for (AllreduceAlgorithm algorithm : plan.algorithms) {
        const AllreduceSelector* chooser = selector ? &*selector : nullptr;
        const Measurement m = measure(t, plan, algorithm, chooser, buffer.first(count));
        if (!output) continue;
        std::string name = toString(algorithm);
        if (algorithm == AllreduceAlgorithm::kAuto) {
          name += ":" + toString(selector->choose(count, plan.wire));
        }
        const double algbw = m.seconds > 0 ? bytes / m.seconds : 0;
        const double busbw = algbw * (p > 1 ? 2.0 * (p - 1) / p : 0.0);
        std::string wrong = t.carriesPayload() ? std::to_string(m.wrong) : "-";
        std::printf("%12.0f %12zu %13s %12.2f %11.3f %11.3f %7s", bytes, count, name.c_str(),
                    m.seconds * 1e6, algbw / 1e9, busbw / 1e9, wrong.c_str());
        if (plan.model) {
          if (plan.twoLevel && algorithm != AllreduceAlgorithm::kHierarchical &&
              algorithm != AllreduceAlgorithm::kAuto) {
            std::printf(" %12s %9s", "-", "-");  // flat algorithms mix both link kinds
          } else {
            const double model = allreduceCost(algorithm, p, count, *plan.model, plan.wire);
            std::printf(" %12.2f %9.3f", model * 1e6, model > 0 ? m.seconds / model : 0.0);
          }
        }
        if (plan.mpi) {
          if (algorithm == AllreduceAlgorithm::kNative) nativeBusbw = busbw;
          if (nativeBusbw && *nativeBusbw > 0) {
            std::printf(" %10.3f", busbw / *nativeBusbw);
          } else {
            std::printf(" %10s", "-");
          }
        }
        std::printf("\n");
        std::fflush(stdout);
      }
    }
  });
}

CommandRegistration registration([](CommandGroups& groups) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = groups.bench->add_subcommand(
      "collectives", "All-reduce algorithms: time, algbw, busbw (nccl-tests style), verified");
  cmd->add_option("--cluster", flags->cluster, "mpi or sim:SPEC (e.g. sim:8x10Gbps,25us)")
      ->capture_default_str();
  cmd->add_option("--workers", flags->workers,
                  "ranks of a simulated cluster whose spec does not fix them");
  cmd->add_option("--algorithms", flags->algorithms,
                  "comma-separated: ring,rd,rabenseifner,tree,hierarchical,native "
                  "(default: all the engine supports; native only under MPI)");
  cmd->add_option("--min-bytes", flags->minBytes, "smallest message (e.g. 4K, 1MB)")
      ->capture_default_str();
  cmd->add_option("--max-bytes", flags->maxBytes, "largest message")->capture_default_str();
  cmd->add_option("--step-factor", flags->stepFactor, "size multiplier between rows")
      ->capture_default_str();
  cmd->add_option("--iters", flags->iters, "timed iterations (default: 2 simulated, 20 MPI)");
  cmd->add_option("--warmup", flags->warmup, "untimed iterations (default: 0 simulated, 5 MPI)");
  cmd->add_flag("--payload-free", flags->payloadFree,
                "simulation only: messages carry sizes but no bytes (no verification)");
  cmd->add_option("--op", flags->op, "sum or avg")->capture_default_str();
  cmd->add_option("--wire", flags->wire,
                  "element type on the wire: fp32, fp16 or bf16 (2 bytes per element, partial "
                  "sums rounded at each hop, float32 accumulation)")
      ->capture_default_str();
  cmd->add_option("--timeout", flags->timeout, "seconds any wait may take")->capture_default_str();
  cmd->add_option("--alpha-beta", flags->alphaBeta,
                  "under MPI: compare with the alpha-beta model of a network of this bandwidth "
                  "and latency per link (e.g. 1Gbps,60us)");
  cmd->add_option("--sim-cfg", flags->simConfig,
                  "SimGrid configuration item, repeatable (e.g. network/model:CM02)");
  cmd->add_option("--net-model", flags->netModel,
                  "network model (default here: plain alpha-beta; under MPI, profile:FILE is the "
                  "model column's network): " +
                      model::netModelHelp())
      ->check(kNetModelName);
  cmd->callback([flags] { runBench(makePlan(*flags)); });
});

}  // namespace
}  // namespace tetrad::app
