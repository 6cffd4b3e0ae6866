// Pipeline cost model of one iteration (pipeline_cost.h).
//
// α–β cost: each message of b bytes occupies the one channel for
// cost.seconds(b), e.g. 2(p−1)·α + 2(p−1)/p·b·β for the ring all-reduce.
#include "tetrad/sched/pipeline_cost.h"

#include <algorithm>
#include <cmath>

#include "tetrad/core/error.h"
#include "tetrad/sched/priority.h"

namespace tetrad::sched {

std::vector<MessageTiming> fifoSendOrder(std::span<const TensorSlot> slots,
                                         const SchedulePlan& plan, const CommCost& cost) {
  checkPlan(slots, plan);
  TETRAD_CHECK(plan.order == SendOrder::kPlanOrder, InvalidArgument,
               "plan '{}' is not a whole-tensor plan", plan.name);
  const std::vector<double> ready = slotReadyTimes(slots);
  double channelFree = plan.afterBackward ? ready.back() : 0;
  std::vector<MessageTiming> order;
  order.reserve(plan.buckets.size());
  for (size_t j = 0; j < plan.buckets.size(); ++j) {
    const Bucket& b = plan.buckets[j];
    const double start = std::max(ready[b.first + b.count - 1], channelFree);
    channelFree = start + cost.seconds(b.bytes);
    order.push_back({j, start, channelFree});
  }
  return order;
}

IterationPrediction predictIteration(std::span<const TensorSlot> slots,
                                     std::span<const double> layerForwardSeconds,
                                     const SchedulePlan& plan, const CommCost& cost) {
  checkPlan(slots, plan);
  int maxLayer = 0;
  for (const TensorSlot& s : slots) maxLayer = std::max(maxLayer, s.layer);
  TETRAD_CHECK(layerForwardSeconds.size() > static_cast<size_t>(maxLayer), InvalidArgument,
               "pipeline model: {} forward layer times given, the slots use layer {}",
               layerForwardSeconds.size(), maxLayer);
  IterationPrediction p;
  p.plan = plan.name;
  for (size_t l = 0; l < layerForwardSeconds.size(); ++l) {
    const double f = layerForwardSeconds[l];
    TETRAD_CHECK(std::isfinite(f) && f >= 0, InvalidArgument,
                 "pipeline model: forward time of layer {} is {} s (must be finite and >= 0)", l,
                 f);
    p.forwardSeconds += f;
  }
  p.backwardSeconds = backwardSeconds(slots);
  p.messages = plan.order == SendOrder::kPlanOrder ? fifoSendOrder(slots, plan, cost)
                                                   : prioritySendOrder(slots, plan, cost);
  p.layerUpdateSeconds.assign(layerForwardSeconds.size(), 0.0);
  auto updateLayer = [&](size_t slot, double end) {
    double& d = p.layerUpdateSeconds[static_cast<size_t>(slots[slot].layer)];
    d = std::max(d, end);
  };
  for (const MessageTiming& m : p.messages) {
    p.commBusySeconds += m.end - m.start;
    p.exchangeEndSeconds = std::max(p.exchangeEndSeconds, m.end);
    if (plan.order == SendOrder::kPlanOrder) {
      const Bucket& b = plan.buckets[m.unit];
      for (size_t i = b.first; i < b.first + b.count; ++i) updateLayer(i, m.end);
    } else {
      updateLayer(plan.chunks[m.unit].slot, m.end);
    }
  }
  p.iterationSeconds = p.forwardSeconds + std::max(p.backwardSeconds, p.exchangeEndSeconds);
  double t = p.backwardSeconds;
  for (size_t l = 0; l < layerForwardSeconds.size(); ++l) {
    t = std::max(t, p.layerUpdateSeconds[l]) + layerForwardSeconds[l];
  }
  p.overlappedSeconds = t;
  return p;
}

}  // namespace tetrad::sched
