// Helpers shared by the scheduling tests: random slots and clusters, and an
// independent coverage check of a plan.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "tetrad/sched/bucket_plan.h"
#include "tetrad/sched/comm_cost.h"

namespace tetrad::sched::testing {

// `count` slots with sizes in [4, maxBytes] (multiples of 4), backward times
// in [0, maxSeconds] (one in four exactly 0, like a bias after its weight)
// and non-increasing layer indices (the ready order runs back to front).
inline std::vector<TensorSlot> randomSlots(std::mt19937_64& rng, size_t count, uint64_t maxBytes,
                                           double maxSeconds) {
  std::uniform_int_distribution<uint64_t> floats(1, maxBytes / 4);
  std::uniform_real_distribution<double> seconds(0, maxSeconds);
  std::uniform_int_distribution<int> coin(0, 3);
  std::vector<TensorSlot> slots(count);
  int layer = static_cast<int>(count);
  for (TensorSlot& s : slots) {
    s.bytes = floats(rng) * 4;
    s.backwardSeconds = coin(rng) == 0 ? 0.0 : seconds(rng);
    if (coin(rng) != 0) --layer;
    s.layer = std::max(layer, 0);
  }
  return slots;
}

// A ring all-reduce cost with p in [2, 32], α in [1 us, 1 ms] and a
// bandwidth between 1 and 100 Gb/s.
inline CommCost randomRingCost(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> workers(2, 32);
  std::uniform_real_distribution<double> logAlpha(-6, -3);
  std::uniform_real_distribution<double> logGbps(0, 2);
  const double bytesPerSecond = std::pow(10.0, logGbps(rng)) * 1e9 / 8;
  return ringAllreduceCommCost(workers(rng), std::pow(10.0, logAlpha(rng)), 1 / bytesPerSecond);
}

// Every byte of every slot is covered exactly once and in ready order,
// checked without checkPlan(): the units, concatenated in list order, walk
// the slots from the first byte of slot 0 to the last byte of the last slot.
inline void expectCoversInReadyOrder(std::span<const TensorSlot> slots, const SchedulePlan& plan) {
  std::vector<uint64_t> covered(slots.size(), 0);
  size_t slot = 0;
  if (plan.order == SendOrder::kPlanOrder) {
    ASSERT_TRUE(plan.chunks.empty()) << plan.name;
    for (const Bucket& b : plan.buckets) {
      ASSERT_GT(b.count, 0u) << plan.name;
      ASSERT_EQ(b.first, slot) << plan.name;
      uint64_t bytes = 0;
      for (size_t i = b.first; i < b.first + b.count; ++i) {
        ASSERT_LT(i, slots.size()) << plan.name;
        covered[i] += slots[i].bytes;
        bytes += slots[i].bytes;
      }
      EXPECT_EQ(b.bytes, bytes) << plan.name;
      slot = b.first + b.count;
    }
  } else {
    ASSERT_TRUE(plan.buckets.empty()) << plan.name;
    for (const Chunk& c : plan.chunks) {
      ASSERT_LT(c.slot, slots.size()) << plan.name;
      ASSERT_GE(c.slot, slot) << plan.name;  // never back to an earlier slot
      slot = c.slot;
      ASSERT_EQ(c.offset, covered[c.slot]) << plan.name;
      ASSERT_GT(c.bytes, 0u) << plan.name;
      EXPECT_EQ(c.layer, slots[c.slot].layer) << plan.name;
      covered[c.slot] += c.bytes;
    }
  }
  for (size_t i = 0; i < slots.size(); ++i) {
    EXPECT_EQ(covered[i], slots[i].bytes) << plan.name << ": slot " << i;
  }
}

}  // namespace tetrad::sched::testing
