// A method's time per iteration (method_cost.h):
//   bsp T = C + E + d·D + X;  local:H  C + (E + d·D + X)/H;
//   ssp/asp  max(C + E + d·D + 2α + bytes·β, busiest link);  gossip  C + α + d·4n·β;
//   + the non-finite guard's ⌈log2 p⌉·α + 4(p−1)·β per iteration (synchronous methods).
#include "tetrad/model/method_cost.h"

#include <algorithm>

#include "tetrad/arch/gossip/gossip_cost.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/arch/registry.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/compress/registry.h"
#include "tetrad/compress/spec.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/model/exchange_cost.h"
#include "tetrad/model/ps_cost.h"
#include "tetrad/sync/registry.h"

namespace tetrad::model {
namespace {

std::string ms(double seconds) {
  return fmt::format("{:.2f}", seconds * 1e3);
}

// The codec of one exchange: E + d·D, and its text.
struct Codec {
  double seconds = 0;
  std::string text;
};

Codec codecOf(const CodecCost& cost, double decodes) {
  Codec codec;
  codec.seconds = cost.encodeSeconds + decodes * cost.decodeSeconds;
  if (cost.source == "none") return codec;
  codec.text = fmt::format(" + codec {} ({}: encode {} + {:.3g} × decode {})", ms(codec.seconds),
                           cost.source, ms(cost.encodeSeconds), decodes, ms(cost.decodeSeconds));
  return codec;
}

void addAccuracyFlags(Prediction& p, const Compressor& compressor, const SyncPolicy& sync) {
  if (lossyCompressor(compressor)) {
    p.flags.push_back(compressor.unbiased() ? "costs accuracy: unbiased compression adds variance"
                                            : "costs accuracy: biased compression");
  }
  if (sync.averagesModels()) p.flags.push_back("costs accuracy: fewer averages");
  if (sync.mode() == SyncMode::kPushPull) p.flags.push_back("costs accuracy: staleness");
}

Prediction gossipPrediction(const Method& method, const ModelContext& c) {
  const Topology topology = parseTopology(describeArch(method.arch).topology, c.network.workers, 1);
  const double packet = 4.0 * double(c.workload.parameters);
  // The neighbours' flows share the link at once (per-size factors and the
  // TCP window of network_model.h).
  const GossipCost step =
      gossipStepCost(topology, packet, c.network.latencyAt(packet),
                     c.network.secondsPerByteAt(packet, std::max(1, topology.maxDegree())));
  Prediction p;
  p.method = method;
  p.computeSeconds = c.compute.seconds;
  p.commSeconds = step.seconds;
  p.seconds = p.computeSeconds + p.commSeconds;
  p.derivation =
      fmt::format("= compute {} + gossip {} [{} + {} × {} / {}, degree {}]", ms(p.computeSeconds),
                  ms(p.commSeconds), formatSeconds(c.network.alpha), topology.maxDegree(),
                  formatBytes(packet), formatBandwidth(1 / c.network.beta), topology.maxDegree());
  p.flags = {"costs accuracy: neighbour averages only"};
  return p;
}

// Adds the guard's per-iteration all-gather to a synchronous prediction,
// except where its word rides on the gradient exchange (train/loop/
// nonfinite_guard.h: all-reduce of gradients every iteration with a summable
// or gather compressor), which sends nothing of its own.
void addGuard(Prediction& p, const ModelContext& c, bool rides = false) {
  if (!c.nonFiniteGuard || rides) return;
  const double guard = nonFiniteGuardSeconds(c.network);
  p.commSeconds += guard;
  p.seconds += guard;
  p.derivation += fmt::format(" + guard {}", ms(guard));
}

}  // namespace

double nonFiniteGuardSeconds(const NetworkModel& network) {
  return allgatherCost(AllgatherAlgorithm::kRecursiveDoubling, network.workers, 1,
                       network.costParams());
}

std::string Method::label() const {
  return fmt::format("{} {} {}", sync, arch, compress);
}

Method canonicalMethod(const Method& method) {
  Method canonical = method;
  try {
    canonical.compress = makeCompressor(method.compress)->spec();
    const ArchShape arch = describeArch(method.arch);
    if (!arch.mixesModels) canonical.arch = arch.canonical;  // gossip keeps its own spelling
    canonical.sync = makeSyncPolicy(method.sync)->spec();
  } catch (const Error&) {
    return method;
  }
  return canonical;
}

bool lossyCompressor(const Compressor& compressor) {
  return compressor.theory() != Compressor::Theory::kExact;
}

Prediction predictMethod(const Method& given, const ModelContext& c) {
  const CompressorPtr compressor = makeCompressor(given.compress);
  Method method = given;
  method.compress = compressor->spec();
  if (describeArch(method.arch).mixesModels) {
    const SyncPolicyPtr sync = makeSyncPolicy(method.sync);
    TETRAD_CHECK(sync->mode() == SyncMode::kCollective && !sync->averagesModels() &&
                     compressor->isIdentity(),
                 InvalidArgument, "method '{}': the gossip model covers D-PSGD (bsp, none) only",
                 method.label());
    Prediction p = gossipPrediction(method, c);
    addGuard(p, c);
    return p;
  }
  const SyncPolicyPtr sync = makeSyncPolicy(method.sync);
  const ArchShape arch = describeArch(method.arch);
  const CompressorPtr none = makeCompressor("none");
  checkCombination(arch, *sync, *compressor, *none);
  method.sync = sync->spec();
  method.arch = arch.canonical;

  Prediction p;
  p.method = method;
  p.computeSeconds = c.compute.seconds;
  const CodecCost codecCost = c.codec(*compressor, c.workload);
  if (arch.serversHoldWeights) {
    const int shards = arch.shards > 0 ? arch.shards : c.network.workers;
    const PsEstimate ps = psExchange(shards, arch.colocated, *compressor, c.workload, c.network);
    const Codec codec = codecOf(codecCost, ps.exchange.decodesPerBucket);
    if (sync->mode() == SyncMode::kPushPull) {
      const double step = p.computeSeconds + codec.seconds + ps.roundTripSeconds;
      p.seconds = std::max(step, ps.linkBoundSeconds);
      p.codecSeconds = codec.seconds;
      p.commSeconds = p.seconds - p.computeSeconds - p.codecSeconds;
      p.derivation = fmt::format("= max(compute {}{} + round trip {}, busiest link {}) [{}]",
                                 ms(p.computeSeconds), codec.text, ms(ps.roundTripSeconds),
                                 ms(ps.linkBoundSeconds), ps.exchange.text);
      addAccuracyFlags(p, *compressor, *sync);
      return p;
    }
    p.codecSeconds = codec.seconds;
    p.commSeconds = ps.exchange.seconds;
    p.derivation = fmt::format("compute {}{} + comm {} [{}]", ms(p.computeSeconds), codec.text,
                               ms(p.commSeconds), ps.exchange.text);
  } else {
    const AllreduceAlgorithm algorithm =
        parseAllreduceAlgorithm(method.arch.substr(std::string("allreduce:").size()));
    const ExchangeEstimate x = allreduceExchange(algorithm, *compressor, c.workload, c.network);
    const Codec codec = codecOf(codecCost, x.decodesPerBucket);
    p.codecSeconds = codec.seconds;
    p.commSeconds = x.seconds;
    p.derivation = fmt::format("compute {}{} + comm {} [{}]", ms(p.computeSeconds), codec.text,
                               ms(p.commSeconds), x.text);
  }
  const int64_t period = sync->averagingPeriod();
  if (period > 1) {
    p.codecSeconds /= double(period);
    p.commSeconds /= double(period);
    const size_t plus = p.derivation.find(" + ");
    p.derivation = fmt::format("{} + ({}) / {}", p.derivation.substr(0, plus),
                               p.derivation.substr(plus + 3), period);
  }
  p.seconds = p.computeSeconds + p.codecSeconds + p.commSeconds;
  p.derivation = "= " + p.derivation;
  // The guard's word rides on each step's gradient exchange (accum:K's too).
  const bool rides = !arch.serversHoldWeights &&
                     compressor->aggregation() != Aggregation::kCustom &&
                     sync->mode() == SyncMode::kCollective && !sync->averagesModels();
  addGuard(p, c, rides);
  addAccuracyFlags(p, *compressor, *sync);
  return p;
}

}  // namespace tetrad::model
