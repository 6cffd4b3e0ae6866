// Measurement of `tetrad bench collectives`: one (algorithm, size) cell of
// the table, timed and verified on every rank.
//
// measure() runs plan.warmup untimed and plan.iters timed all-reduces on
// `data` (one buffer reused throughout), each after a barrier. Every
// iteration fills the buffer with small integers whose float32 sum is exact
// in any order, and checks the result element by element against it (within
// the wire's error bound for fp16/bf16); payload-free runs skip the check.
// Collective: every rank of the launched job calls it with the same plan,
// algorithm and size, from its own worker thread or actor.
#pragma once

#include <cstdint>
#include <span>

#include "bench_collectives_plan.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/transport/transport.h"

namespace tetrad::app::bench_collectives {

struct Measurement {
  double seconds = 0;  // median over iterations of the slowest rank
  uint64_t wrong = 0;  // over all ranks and iterations
};

// Runs one (algorithm, size) on this rank; every rank returns the same.
// `selector`: allreduce:auto's (null for the other algorithms).
Measurement measure(Transport& t, const BenchPlan& plan, AllreduceAlgorithm algorithm,
                    const AllreduceSelector* selector, std::span<float> data);

}  // namespace tetrad::app::bench_collectives
