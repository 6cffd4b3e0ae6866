// One exchange through all-reduce (exchange_cost.h), per bucket of c floats:
//   none / 16-bit wire / summable   Σ allreduceCost(ALGO, p, c | c·2 B | ⌈P/4⌉)
//   gather, packet ring (sign vote)  (p−1)·(B·α + ΣP·β)
//   all-reduce rounds (powersgd:R)   Σ rounds allreduceCost(floats of the round:
//                                    Σn·R + u, then Σm·R)
//   merge tree (gtopk:R)             (log2 q + 2[p≠q])·(B·α + ΣP·β), P = 20 + 8k
// The custom protocols' shapes are their compressors' own (Compressor::
// protocolShape()), so a new protocol is priced without its name.
#include "tetrad/model/exchange_cost.h"

#include <algorithm>
#include <cmath>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::model {
namespace {

int ceilLog2(int p) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  return rounds;
}

// The all-reduces of one exchange: exact seconds, and the totals the closed
// form needs.
struct AllreduceCalls {
  double seconds = 0;
  size_t calls = 0;
  double bytes = 0;       // Σ wire bytes of the vectors
  double ringBlocks = 0;  // Σ ⌈c/p⌉ · element bytes
  double nodeBlocks = 0;  // Σ ⌈c/m⌉ · element bytes (hierarchical leaders)
  // allreduce:auto: how many calls each algorithm took, in first-use order.
  std::vector<std::pair<AllreduceAlgorithm, int>> autoChoices;
};

void addAllreduce(AllreduceCalls& calls, AllreduceAlgorithm algorithm, size_t count,
                  WirePrecision wire, const NetworkModel& network) {
  const int p = network.workers;
  const double elem = wire == WirePrecision::kFloat32 ? 4.0 : 2.0;
  const CostParams params = network.costParams();
  AllreduceAlgorithm runs = algorithm;
  if (algorithm == AllreduceAlgorithm::kAuto) {
    const AllreduceAlgorithm chosen =
        AllreduceSelector(p, params, "cost model").choose(count, wire);
    runs = chosen;  // auto costs what it chose
    auto it = std::find_if(calls.autoChoices.begin(), calls.autoChoices.end(),
                           [&](const auto& c) { return c.first == chosen; });
    if (it == calls.autoChoices.end()) {
      calls.autoChoices.push_back({chosen, 1});
    } else {
      ++it->second;
    }
  }
  calls.seconds += allreduceCost(runs, p, count, params, wire);
  calls.calls += 1;
  calls.bytes += double(count) * elem;
  calls.ringBlocks += double(largestBlock(count, p)) * elem;
  const int nodes = (p + network.ranksPerNode - 1) / network.ranksPerNode;
  calls.nodeBlocks += double(largestBlock(count, nodes)) * elem;
}

std::string bandwidthTerm(double bytes, double beta) {
  return fmt::format("{} / {}", formatBytes(bytes), formatBandwidth(1 / beta));
}

std::string allreduceText(AllreduceAlgorithm algorithm, const AllreduceCalls& c,
                          const NetworkModel& net) {
  const int p = net.workers;
  const std::string name = toString(algorithm);
  switch (algorithm) {
    case AllreduceAlgorithm::kRing:
      return fmt::format("ring 2 × {} × ({} + {})", p - 1, latencyText(c.calls, net.alpha),
                         bandwidthTerm(c.ringBlocks, net.beta));
    case AllreduceAlgorithm::kRecursiveDoubling:
      return fmt::format("rd {} × ({} + {})", ceilLog2(p), latencyText(c.calls, net.alpha),
                         bandwidthTerm(c.bytes, net.beta));
    case AllreduceAlgorithm::kRabenseifner:
      return fmt::format("rabenseifner 2 × {} × {} + 2 × {}/{} × {}", ceilLog2(p),
                         latencyText(c.calls, net.alpha), p - 1, p,
                         bandwidthTerm(c.bytes, net.beta));
    case AllreduceAlgorithm::kTree:
      return fmt::format("tree 2 × {} × ({} + {})", ceilLog2(p), latencyText(c.calls, net.alpha),
                         bandwidthTerm(c.bytes, net.beta));
    case AllreduceAlgorithm::kHierarchical: {
      const int g = std::min(net.ranksPerNode, p);
      const int m = (p + net.ranksPerNode - 1) / net.ranksPerNode;
      const CostParams params = net.costParams();
      if (g <= 1) {  // one rank per node: the ring among all ranks
        return fmt::format("hierarchical (1 rank per node) 2 × {} × ({} + {})", m - 1,
                           latencyText(c.calls, net.alpha), bandwidthTerm(c.nodeBlocks, net.beta));
      }
      return fmt::format("hierarchical 2 × {} × ({} + {}) + 2 × {} × ({} + {})", ceilLog2(g),
                         latencyText(c.calls, params.intraAlpha),
                         bandwidthTerm(c.bytes, params.intraBeta), m - 1,
                         latencyText(c.calls, net.alpha), bandwidthTerm(c.nodeBlocks, net.beta));
    }
    case AllreduceAlgorithm::kAuto: {
      std::string chosen;
      for (const auto& [a, n] : c.autoChoices) {
        chosen += fmt::format("{}{} × {}", chosen.empty() ? "" : ", ", toString(a), n);
      }
      return fmt::format("auto [{}] {}", chosen, formatSeconds(c.seconds));
    }
    default:
      return name;
  }
}

}  // namespace

std::string latencyText(double count, double alpha) {
  if (count == 1) return formatSeconds(alpha);
  return fmt::format("{:g} × {}", count, formatSeconds(alpha));
}

std::vector<BucketRange> exchangeBuckets(const Workload& workload, uint64_t capBytes) {
  std::vector<ParameterSlot> slots;
  for (size_t t = 0; t < workload.tensors.size(); ++t) {
    slots.push_back(
        {fmt::format("t{}", t), size_t(workload.tensors[t].elements), workload.tensors[t].shape});
  }
  return fuseInOrder(slots, capBytes);
}

double packetBytes(const Compressor& compressor, const BucketRange& bucket) {
  CompressorState state;
  state.shape = bucket.shape;
  if (bucket.tensorShapes.size() > 1) state.layout = bucket.tensorShapes;
  return std::ceil(compressor.bucketBitsPerElement(state, bucket.count) * double(bucket.count) /
                   8.0);
}

double packetBytes(const Compressor& compressor, size_t count) {
  return std::ceil(compressor.bitsPerElement(count) * double(count) / 8.0);
}

ExchangeEstimate allreduceExchange(AllreduceAlgorithm algorithm, const Compressor& compressor,
                                   const Workload& workload, const NetworkModel& network) {
  TETRAD_CHECK(algorithm != AllreduceAlgorithm::kNative, Unsupported,
               "allreduce:native (MPI_Allreduce) has no cost model");
  const int p = network.workers;
  const std::vector<BucketRange> buckets = exchangeBuckets(workload, workload.bucketBytes);
  ExchangeEstimate estimate;
  AllreduceCalls calls;
  const Aggregation aggregation = compressor.aggregation();
  using Shape = Compressor::ProtocolShape;
  const Shape shape =
      aggregation == Aggregation::kCustom ? compressor.protocolShape() : Shape::kUnmodelled;
  if (aggregation == Aggregation::kSummable) {
    for (const BucketRange& b : buckets) {
      if (compressor.isIdentity()) {
        addAllreduce(calls, algorithm, b.count, WirePrecision::kFloat32, network);
      } else if (compressor.summableWire() != WirePrecision::kFloat32) {
        addAllreduce(calls, algorithm, b.count, compressor.summableWire(), network);
      } else {
        const auto floats = size_t(std::ceil(packetBytes(compressor, b) / 4.0));
        addAllreduce(calls, algorithm, floats, WirePrecision::kFloat32, network);
      }
    }
  } else if (aggregation == Aggregation::kGather || shape == Shape::kPacketRing ||
             shape == Shape::kMergeTree) {
    // Per bucket, one packet per step: p - 1 ring steps (a gather, the
    // majority vote), or a merge tree's rounds (gTop-k).
    int q = 1;
    while (q * 2 <= p) q *= 2;
    const bool tree = shape == Shape::kMergeTree;
    const int steps = tree ? ceilLog2(q) + (p != q ? 2 : 0) : p - 1;
    double bytes = 0, step = 0;
    for (const BucketRange& b : buckets) {
      const double packet = packetBytes(compressor, b);
      bytes += packet;
      step += network.messageSeconds(packet);
    }
    const double n = double(buckets.size());
    estimate.seconds = steps * step;
    estimate.messages = buckets.size();
    estimate.decodesPerBucket = compressor.modelledDecodes(p);
    estimate.text = fmt::format("{} {} × ({} + {})", tree ? "merge tree" : "allgather", steps,
                                latencyText(n, network.alpha), bandwidthTerm(bytes, network.beta));
    return estimate;
  } else if (shape == Shape::kAllreduceRounds) {
    for (const BucketRange& b : buckets) {
      CompressorState state;
      state.shape = b.shape;
      if (b.tensorShapes.size() > 1) state.layout = b.tensorShapes;
      for (size_t floats : compressor.allreduceRoundFloats(state, b.count)) {
        addAllreduce(calls, algorithm, floats, WirePrecision::kFloat32, network);
      }
    }
  } else {
    TETRAD_FAIL(Unsupported, "compressor '{}': its custom protocol has no cost model",
                compressor.spec());
  }
  estimate.seconds = calls.seconds;
  estimate.messages = calls.calls;
  estimate.decodesPerBucket = compressor.modelledDecodes(p);
  estimate.text = allreduceText(algorithm, calls, network);
  return estimate;
}

}  // namespace tetrad::model
