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
// (MPI_Allreduce) is among the algorithms, busbw / native busbw at the same size.
//
// Output on stdout from one process (rank 0); progress on stderr once a run
// takes more than a few seconds. Bad flags throw InvalidArgument.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "command.h"
#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/transport/launcher.h"
#include "tetrad/transport/sim/cluster_spec.h"

namespace tetrad::app {
namespace {

struct BenchFlags {
  std::string cluster = "sim:8x10Gbps,25us";
  int workers = 0;
  std::string algorithms;  // empty: all the engine supports
  std::string minBytes = "4K";
  std::string maxBytes = "64M";
  double stepFactor = 2;
  int iters = 0;    // 0: 2 on a simulated cluster (times are deterministic), 20 under MPI
  int warmup = -1;  // -1: 0 simulated, 5 under MPI
  bool payloadFree = false;
  std::string op = "sum";
  std::string wire = "fp32";
  double timeout = 300;
  std::vector<std::string> simConfig;
};

struct BenchPlan {
  LaunchOptions launch;
  std::vector<AllreduceAlgorithm> algorithms;
  std::vector<size_t> counts;  // floats per size
  ReduceOp op = ReduceOp::kSum;
  WirePrecision wire = WirePrecision::kFloat32;
  int iters = 0;
  int warmup = 0;
  // α–β parameters where the model applies: a star (every algorithm), or
  // hierarchical all-reduce on a two-level cluster (`twoLevel`).
  std::optional<CostParams> model;
  bool twoLevel = false;
  bool mpi = false;
};

BenchPlan makePlan(const BenchFlags& flags) {
  BenchPlan plan;
  plan.mpi = isMpiCluster(flags.cluster);
  plan.launch.cluster = flags.cluster;
  plan.launch.workers = flags.workers;
  plan.launch.timeoutSeconds = flags.timeout;
  plan.launch.payloadFree = flags.payloadFree;
  plan.launch.simConfig = flags.simConfig;
  // The bench compares algorithms by their α–β cost, so a simulated cluster
  // uses SimGrid's plain CM02 model without cross traffic unless the user
  // picks a model (e.g. --sim-cfg network/model:LV08 for TCP factors).
  auto configures = [&](std::string_view prefix) {
    for (const std::string& item : flags.simConfig) {
      if (std::string_view(item).starts_with(prefix)) return true;
    }
    return false;
  };
  if (!isMpiCluster(flags.cluster)) {
    if (!configures("network/model")) plan.launch.simConfig.push_back("network/model:CM02");
    if (!configures("network/crosstraffic")) {
      plan.launch.simConfig.push_back("network/crosstraffic:0");
    }
  }
  TETRAD_CHECK(flags.workers >= 0, InvalidArgument, "--workers must be >= 0, got {}",
               flags.workers);
  TETRAD_CHECK(flags.timeout > 0, InvalidArgument, "--timeout must be positive, got {}",
               flags.timeout);
  TETRAD_CHECK(!plan.mpi || flags.simConfig.empty(), InvalidArgument,
               "--sim-cfg applies to simulated clusters only (--cluster sim:...)");
  if (!plan.mpi) {
    const sim::ClusterSpec spec = sim::parseClusterSpec(flags.cluster);
    if (spec.topology == sim::Topology::kStar) {
      plan.model = CostParams{spec.link.latency, 1.0 / spec.link.bandwidth};
    } else if (spec.topology == sim::Topology::kTwoLevel) {
      // Between nodes a message crosses both levels (cluster_spec.h).
      CostParams c;
      c.alpha = spec.intraLink.latency + spec.link.latency;
      c.beta = 1.0 / std::min(spec.intraLink.bandwidth, spec.link.bandwidth);
      c.ranksPerNode = spec.ranksPerNode;
      c.intraAlpha = spec.intraLink.latency;
      c.intraBeta = 1.0 / spec.intraLink.bandwidth;
      plan.model = c;
      plan.twoLevel = true;
    }
  }

  plan.wire = parseWirePrecision(flags.wire);
  const bool nativeWire = plan.wire == WirePrecision::kFloat32;
  if (flags.algorithms.empty()) {
    for (AllreduceAlgorithm a : allAllreduceAlgorithms()) {
      if (a != AllreduceAlgorithm::kNative || (plan.mpi && nativeWire)) {
        plan.algorithms.push_back(a);
      }
    }
  } else {
    size_t start = 0;
    while (start <= flags.algorithms.size()) {
      size_t end = flags.algorithms.find(',', start);
      if (end == std::string::npos) end = flags.algorithms.size();
      plan.algorithms.push_back(
          parseAllreduceAlgorithm(std::string_view(flags.algorithms).substr(start, end - start)));
      start = end + 1;
    }
  }
  for (AllreduceAlgorithm a : plan.algorithms) {
    TETRAD_CHECK(a != AllreduceAlgorithm::kNative || plan.mpi, InvalidArgument,
                 "--algorithms native needs --cluster mpi (MPI_Allreduce is the baseline there)");
    TETRAD_CHECK(a != AllreduceAlgorithm::kNative || nativeWire, InvalidArgument,
                 "--algorithms native sends float32 only: drop it or use --wire fp32");
  }
  // The native baseline runs first at each size so that others compare to it.
  std::stable_partition(plan.algorithms.begin(), plan.algorithms.end(),
                        [](AllreduceAlgorithm a) { return a == AllreduceAlgorithm::kNative; });

  const uint64_t minBytes = parseBytes(flags.minBytes);
  const uint64_t maxBytes = parseBytes(flags.maxBytes);
  TETRAD_CHECK(minBytes >= sizeof(float), InvalidArgument,
               "--min-bytes must be at least 4 (one float), got {}", flags.minBytes);
  TETRAD_CHECK(minBytes <= maxBytes, InvalidArgument,
               "--min-bytes {} is larger than --max-bytes {}", flags.minBytes, flags.maxBytes);
  TETRAD_CHECK(flags.stepFactor > 1, InvalidArgument, "--step-factor must be > 1, got {}",
               flags.stepFactor);
  for (double bytes = static_cast<double>(minBytes); bytes <= static_cast<double>(maxBytes);
       bytes *= flags.stepFactor) {
    const size_t count = static_cast<size_t>(bytes) / sizeof(float);
    if (plan.counts.empty() || plan.counts.back() != count) plan.counts.push_back(count);
  }

  TETRAD_CHECK(flags.op == "sum" || flags.op == "avg", InvalidArgument,
               "--op must be sum or avg, got '{}'", flags.op);
  plan.op = flags.op == "sum" ? ReduceOp::kSum : ReduceOp::kAverage;

  TETRAD_CHECK(flags.iters >= 0 && flags.warmup >= -1, InvalidArgument,
               "--iters must be >= 1 and --warmup >= 0");
  plan.iters = flags.iters > 0 ? flags.iters : (plan.mpi ? 20 : 2);
  plan.warmup = flags.warmup >= 0 ? flags.warmup : (plan.mpi ? 5 : 0);
  return plan;
}

// Rank r's element i in iteration k: (r mod 4 + 1) · ((i + k) mod 7 + 1).
// Sums over up to ~950,000 ranks stay below 2^24, so every float32 order
// gives the exact sum; up to ~3,700 ranks they stay finite in fp16.
float inputValue(int rank, size_t i, int iteration) {
  return static_cast<float>((rank % 4 + 1) * static_cast<int>((i + iteration) % 7 + 1));
}

// The exact result, and how far a correct result may be from it.
struct Expected {
  float value = 0;
  float tolerance = 0;
};

Expected expectedValue(int p, size_t i, int iteration, const BenchPlan& plan) {
  const int64_t rankFactors = int64_t{10} * (p / 4) + (p % 4) * (p % 4 + 1) / 2;  // Σ r%4+1
  Expected e;
  e.value = static_cast<float>(rankFactors * static_cast<int64_t>((i + iteration) % 7 + 1));
  if (plan.op == ReduceOp::kAverage) e.value /= static_cast<float>(p);
  if (plan.wire != WirePrecision::kFloat32) {
    const double u = plan.wire == WirePrecision::kFloat16 ? 0x1p-11 : 0x1p-8;
    e.tolerance = static_cast<float>(2.0 * p * u * e.value);  // the inputs are positive
  }
  return e;
}

struct Measurement {
  double seconds = 0;  // median over iterations of the slowest rank
  uint64_t wrong = 0;  // over all ranks and iterations
};

// Runs one (algorithm, size) on this rank; every rank returns the same.
Measurement measure(Transport& t, const BenchPlan& plan, AllreduceAlgorithm algorithm,
                    std::span<float> data) {
  const bool verify = t.carriesPayload();
  const int p = t.size();
  std::vector<double> times;
  double wrong = 0;
  for (int k = -plan.warmup; k < plan.iters; ++k) {
    if (verify) {
      for (size_t i = 0; i < data.size(); ++i) data[i] = inputValue(t.rank(), i, k);
    }
    barrier(t, CollectiveOptions{900});
    const double start = t.now();
    allreduce(t, data, AllreduceOptions{algorithm, plan.op, 100, plan.wire});
    const double elapsed = t.now() - start;
    if (k < 0) continue;
    times.push_back(elapsed);
    if (verify) {
      for (size_t i = 0; i < data.size(); ++i) {
        const Expected e = expectedValue(p, i, k, plan);
        if (!(std::abs(data[i] - e.value) <= e.tolerance)) ++wrong;
      }
    }
  }
  // Every rank's times and error count, so that all agree on the slowest.
  // Payload-free messages carry no numbers: rank 0's own times are shown.
  times.push_back(wrong);
  std::vector<double> all(times.size() * p, 0.0);
  if (verify) {
    allgathervBytes(t, asBytes(std::span<const double>(times)), asWritableBytes(std::span(all)),
                    std::vector<size_t>(p, times.size() * sizeof(double)), AllgatherOptions{});
  } else {
    std::copy(times.begin(), times.end(), all.begin() + t.rank() * times.size());
  }
  Measurement m;
  std::vector<double> slowest(static_cast<size_t>(plan.iters), 0.0);
  for (int r = 0; r < p; ++r) {
    const double* mine = all.data() + r * times.size();
    for (int k = 0; k < plan.iters; ++k) slowest[k] = std::max(slowest[k], mine[k]);
    m.wrong += static_cast<uint64_t>(mine[plan.iters]);
  }
  std::nth_element(slowest.begin(), slowest.begin() + plan.iters / 2, slowest.end());
  m.seconds = slowest[plan.iters / 2];
  return m;
}

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
  if (plan.model) std::printf(" %12s %9s", "model(us)", "sim/model");
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
        const Measurement m = measure(t, plan, algorithm, buffer.first(count));
        if (!output) continue;
        const double algbw = m.seconds > 0 ? bytes / m.seconds : 0;
        const double busbw = algbw * (p > 1 ? 2.0 * (p - 1) / p : 0.0);
        std::string wrong = t.carriesPayload() ? std::to_string(m.wrong) : "-";
        std::printf("%12.0f %12zu %13s %12.2f %11.3f %11.3f %7s", bytes, count,
                    toString(algorithm).c_str(), m.seconds * 1e6, algbw / 1e9, busbw / 1e9,
                    wrong.c_str());
        if (plan.model) {
          if (plan.twoLevel && algorithm != AllreduceAlgorithm::kHierarchical) {
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
  cmd->add_option("--sim-cfg", flags->simConfig,
                  "SimGrid configuration item, repeatable (e.g. network/model:CM02)");
  cmd->callback([flags] { runBench(makePlan(*flags)); });
});

}  // namespace
}  // namespace tetrad::app
