// Plan of `tetrad bench collectives` (see bench_collectives_plan.h): flags
// to a validated plan. Runs once, before launch; no communication.
#include "bench_collectives_plan.h"

#include <algorithm>
#include <string_view>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/transport/sim/cluster_spec.h"

namespace tetrad::app::bench_collectives {

namespace {

// The α–β model the results are compared with: --alpha-beta or the network
// model's link under MPI; the cluster's own links when simulated.
void setCostModel(const BenchFlags& flags, const model::NetModelChoice& net, BenchPlan& plan) {
  if (!flags.alphaBeta.empty()) {
    const size_t comma = flags.alphaBeta.find(',');
    TETRAD_CHECK(comma != std::string::npos, InvalidArgument,
                 "--alpha-beta wants BANDWIDTH,LATENCY (e.g. 1Gbps,60us), got '{}'",
                 flags.alphaBeta);
    const std::string_view text(flags.alphaBeta);
    const double bandwidth = parseBandwidth(text.substr(0, comma));
    const double latency = parseDuration(text.substr(comma + 1));
    TETRAD_CHECK(bandwidth > 0 && latency >= 0, InvalidArgument,
                 "--alpha-beta wants a positive bandwidth and a latency >= 0, got '{}'",
                 flags.alphaBeta);
    plan.model = CostParams{latency, 1.0 / bandwidth};
  } else if (plan.mpi && !net.name.empty()) {
    plan.model = CostParams{net.linkLatency, 1.0 / net.linkBandwidth};
  }
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
  if (plan.model) {
    plan.model->latencyFactor = net.latencyFactor;
    plan.model->bandwidthFactor = net.bandwidthFactor;
  }
}

// --wire and --algorithms (every algorithm by default, allreduce:auto where
// there is a model to choose on), the native baseline first.
void setAlgorithms(const BenchFlags& flags, BenchPlan& plan) {
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
  // allreduce:auto, with the model's choice per size, where there is a model.
  if (flags.algorithms.empty() && plan.model) plan.algorithms.push_back(AllreduceAlgorithm::kAuto);
  for (AllreduceAlgorithm a : plan.algorithms) {
    TETRAD_CHECK(a != AllreduceAlgorithm::kAuto || plan.model, InvalidArgument,
                 "--algorithms auto needs a network model to choose on: a star or two-level "
                 "sim cluster, or --alpha-beta under MPI");
    TETRAD_CHECK(a != AllreduceAlgorithm::kNative || plan.mpi, InvalidArgument,
                 "--algorithms native needs --cluster mpi (MPI_Allreduce is the baseline there)");
    TETRAD_CHECK(a != AllreduceAlgorithm::kNative || nativeWire, InvalidArgument,
                 "--algorithms native sends float32 only: drop it or use --wire fp32");
  }
  // The native baseline runs first at each size so that others compare to it.
  std::stable_partition(plan.algorithms.begin(), plan.algorithms.end(),
                        [](AllreduceAlgorithm a) { return a == AllreduceAlgorithm::kNative; });
}

// Message sizes from --min-bytes to --max-bytes by --step-factor, in floats.
void setCounts(const BenchFlags& flags, BenchPlan& plan) {
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
}

}  // namespace

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
  const model::NetModelChoice net = model::resolveNetModel(flags.netModel);
  plan.netModel = net.name;
  TETRAD_CHECK(!plan.mpi || net.name.empty() || net.name.starts_with("profile:"), InvalidArgument,
               "--net-model {} applies to simulated clusters (under MPI only a profile, as the "
               "model column's network)",
               net.name);
  if (!isMpiCluster(flags.cluster) && !net.name.empty()) {
    plan.launch.simConfig = model::combineSimConfig(net, flags.simConfig);
  } else if (!isMpiCluster(flags.cluster)) {
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
  TETRAD_CHECK(plan.mpi || flags.alphaBeta.empty(), InvalidArgument,
               "--alpha-beta applies to --cluster mpi (a simulated star has its own model)");
  setCostModel(flags, net, plan);
  setAlgorithms(flags, plan);
  setCounts(flags, plan);
  TETRAD_CHECK(flags.op == "sum" || flags.op == "avg", InvalidArgument,
               "--op must be sum or avg, got '{}'", flags.op);
  plan.op = flags.op == "sum" ? ReduceOp::kSum : ReduceOp::kAverage;

  TETRAD_CHECK(flags.iters >= 0 && flags.warmup >= -1, InvalidArgument,
               "--iters must be >= 1 and --warmup >= 0");
  plan.iters = flags.iters > 0 ? flags.iters : (plan.mpi ? 20 : 2);
  plan.warmup = flags.warmup >= 0 ? flags.warmup : (plan.mpi ? 5 : 0);
  return plan;
}

}  // namespace tetrad::app::bench_collectives
