// Parameter server (ps_cost.h): dedicated
//   T = α + max(Push, W·max_s push_s)·β + α + max(Pull, W·max_s pull_s)·β,
// colocated: the same per worker link with Push − push_s(w) and (W−1)·push_s(w).
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
  std::vector<double> pushOf(shards, 0), pullOf(shards, 0);
  double push = 0, pull = 0;
  for (const Partition& part : plan.partitions) {
    const double up = 16 + packetBytes(compressor, part.count);
    const double down = 24 + 16 + 4.0 * double(part.count);
    pushOf[part.shard] += up;
    pullOf[part.shard] += down;
    push += up;
    pull += down;
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
  PsEstimate estimate;
  ExchangeEstimate& e = estimate.exchange;
  e.seconds = pushLatency + pushLink * pushPerByte + pullLatency + pullLink * pullPerByte;
  e.messages = plan.partitions.size();
  e.decodesPerBucket = w * maxPush / push;
  e.text = fmt::format("ps{} push {} + {} / {}, pull {} + {} / {} ({} partitions on {} shard{})",
                       colocated ? " colocated" : "", formatSeconds(alpha), formatBytes(pushLink),
                       formatBandwidth(1 / beta), formatSeconds(alpha), formatBytes(pullLink),
                       formatBandwidth(1 / beta), plan.partitions.size(), shards,
                       shards == 1 ? "" : "s");
  estimate.roundTripSeconds = pushLatency + workerUp * network.secondsPerByteAt(pushMessage) +
                              pullLatency + workerDown * network.secondsPerByteAt(pullMessage);
  estimate.linkBoundSeconds = busiest * std::max(pushPerByte, pullPerByte);
  return estimate;
}

}  // namespace tetrad::model
