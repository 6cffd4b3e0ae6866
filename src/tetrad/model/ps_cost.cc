// Parameter server (ps_cost.h): dedicated
//   T = α + max(Push, W·max_s push_s)·β + α + max(Pull, W·max_s pull_s)·β,
// colocated: the same per worker link with Push − push_s(w) and (W−1)·push_s(w);
// at least the chain of a shard's partitions, (m + 1)·α + its link's bytes.
#include "tetrad/model/ps_cost.h"

#include <algorithm>
#include <vector>

#include "tetrad/arch/ps/partition_plan.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::model {

PsEstimate psExchange(int shards, bool colocated, const Compressor& compressor,
                      const Workload& workload, const NetworkModel& network) {
  const int w = network.workers;
  TETRAD_CHECK(shards >= 1 && (!colocated || shards <= w), InvalidArgument,
               "ps: {} shards for {} workers", shards, w);
  std::vector<ParameterSlot> slots;
  for (size_t t = 0; t < workload.tensors.size(); ++t) {
    slots.push_back(
        {fmt::format("t{}", t), size_t(workload.tensors[t].elements), workload.tensors[t].shape});
  }
  const std::vector<BucketRange> buckets = exchangeBuckets(workload, workload.bucketBytes);
  const PartitionPlan plan = planPartitions(slots, buckets, kPsPartitionBytes, shards);
  // Each partition's bytes: push = request header + packet, pull = reply
  // header + a "none" packet.
  std::vector<double> upOf, downOf;  // per partition
  std::vector<double> pushOf(shards, 0), pullOf(shards, 0);
  double push = 0, pull = 0;
  for (const Partition& part : plan.partitions) {
    upOf.push_back(16 + packetBytes(compressor, part.count));
    downOf.push_back(24 + 16 + 4.0 * double(part.count));
    pushOf[part.shard] += upOf.back();
    pullOf[part.shard] += downOf.back();
    push += upOf.back();
    pull += downOf.back();
  }
  const double maxPush = *std::max_element(pushOf.begin(), pushOf.end());
  const double maxPull = *std::max_element(pullOf.begin(), pullOf.end());
  double pushLink = 0, pullLink = 0, workerUp = 0, workerDown = 0, busiest = 0;
  if (!colocated) {
    pushLink = std::max(push, w * maxPush);
    pullLink = std::max(pull, w * maxPull);
    workerUp = push;
    workerDown = pull;
    busiest = std::max({push, pull, w * maxPush, w * maxPull});
  } else {
    for (int r = 0; r < w; ++r) {
      const double ownPush = r < shards ? pushOf[r] : 0, ownPull = r < shards ? pullOf[r] : 0;
      pushLink = std::max({pushLink, push - ownPush, (w - 1) * ownPush});
      pullLink = std::max({pullLink, (w - 1) * ownPull, pull - ownPull});
      workerUp = std::max(workerUp, push - ownPush);
      workerDown = std::max(workerDown, pull - ownPull);
      busiest = std::max(
          {busiest, push - ownPush + (w - 1) * ownPull, (w - 1) * ownPush + pull - ownPull});
    }
  }
  const double alpha = network.alpha, beta = network.beta;
  // Per-size factors and the TCP window at the mean partition's message
  // size; the busiest link carries the w workers' flows at once.
  const double partitions = double(plan.partitions.size());
  const double pushMessage = push / partitions, pullMessage = pull / partitions;
  const int flows = colocated ? std::max(1, w - 1) : w;
  const double pushLatency = network.latencyAt(pushMessage);
  const double pullLatency = network.latencyAt(pullMessage);
  const double pushPerByte = network.secondsPerByteAt(pushMessage, flows);
  const double pullPerByte = network.secondsPerByteAt(pullMessage, flows);
  // One receive per source (arch/ps: a shard's recvAny over the workers, a
  // worker's over the shards): a worker's partitions for one shard travel
  // one after another, each once the previous one arrived, and the shard's
  // replies to it likewise. A shard holding m partitions of a bucket ends
  // its exchange after max(m·α_push + α_pull, α_push + m·α_pull) plus its
  // link's bytes; buckets are exchanged one after another. Latency-bound,
  // this chain is the exchange's time (measured: 6.6α per iteration for the
  // mlp on ps:2, whose smaller shard holds 5 partitions; 2α in the
  // phase-by-phase formula above).
  double chain = 0, ownChain = 0;
  size_t longest = 0;
  for (const std::vector<size_t>& ids : plan.perBucket) {
    std::vector<size_t> count(size_t(shards), 0);
    std::vector<double> up(size_t(shards), 0), down(size_t(shards), 0);
    for (size_t id : ids) {
      const Partition& part = plan.partitions[id];
      ++count[size_t(part.shard)];
      up[size_t(part.shard)] += upOf[id];
      down[size_t(part.shard)] += downOf[id];
    }
    double bucketChain = 0, bucketOwn = 0;
    for (size_t k = 0; k < size_t(shards); ++k) {
      if (count[k] == 0) continue;
      longest = std::max(longest, count[k]);
      const double m = double(count[k]);
      const double latency = std::max(m * pushLatency + pullLatency, pushLatency + m * pullLatency);
      bucketChain =
          std::max(bucketChain, latency + flows * (up[k] * pushPerByte + down[k] * pullPerByte));
      bucketOwn = std::max(bucketOwn, latency + up[k] * network.secondsPerByteAt(pushMessage) +
                                          down[k] * network.secondsPerByteAt(pullMessage));
    }
    chain += bucketChain;
    ownChain += bucketOwn;
  }
  PsEstimate estimate;
  ExchangeEstimate& e = estimate.exchange;
  const double phases = pushLatency + pushLink * pushPerByte + pullLatency + pullLink * pullPerByte;
  e.seconds = std::max(phases, chain);
  e.messages = plan.partitions.size();
  e.decodesPerBucket = w * maxPush / push;
  e.text = fmt::format("ps{} push {} + {} / {}, pull {} + {} / {} ({} partitions on {} shard{})",
                       colocated ? " colocated" : "", formatSeconds(alpha), formatBytes(pushLink),
                       formatBandwidth(1 / beta), formatSeconds(alpha), formatBytes(pullLink),
                       formatBandwidth(1 / beta), plan.partitions.size(), shards,
                       shards == 1 ? "" : "s");
  if (chain > phases * 1.001)
    e.text += fmt::format("; at least {}: a shard's {} partitions one after another",
                          formatSeconds(chain), longest);
  estimate.roundTripSeconds =
      std::max(pushLatency + workerUp * network.secondsPerByteAt(pushMessage) + pullLatency +
                   workerDown * network.secondsPerByteAt(pullMessage),
               ownChain);
  estimate.linkBoundSeconds = busiest * std::max(pushPerByte, pullPerByte);
  return estimate;
}

}  // namespace tetrad::model
