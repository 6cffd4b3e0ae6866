// Schedule set-up: what a scheduler's plan is computed from on this run —
// the parameters' forward stages, their backward times and the α–β cost of
// one message through the run's architecture — identical on every rank, so
// every rank computes the same plan (sched/scheduler.h).
//
//   backward times   the compute model's time of one forward + backward
//                    (fixed: DURATION; flops: the model's FLOPs / GFLOPS;
//                    measured: rank 0's probe of one batch, broadcast),
//                    two thirds of it for the backward pass, split over the
//                    stages by their FLOPs and charged to the first gradient
//                    of each stage in ready order (sched/model_shapes.h's
//                    convention)
//   message cost     allreduce:ALGO: collective_cost.h's model of ALGO on the
//                    workers; ps[:K]: a push and a pull through K shards,
//                    2α + 2·(W/K)·b·β; α and β from a calibration on the
//                    run's own network (both engines: SimGrid's model scales
//                    the spec's latency and bandwidth, and MPI has no spec):
//                    rank 0 times ring all-reduces of 256 B and 4 MiB among
//                    the workers (median of 3, set-up time, not training)
//                    and broadcasts α and β
//
// Thread-safety: called by each rank's worker during set-up.
#pragma once

#include <optional>
#include <vector>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/sched/comm_cost.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

// Backward seconds per parameter (ScheduleInputs::backwardSeconds) for a
// forward + backward of `batchSeconds`, given each parameter's stage and the
// stages' FLOPs.
inline constexpr Tag kScheduleTagSpan = 3 * kCollectiveTagSpan;

std::vector<double> plannedBackwardSeconds(double batchSeconds, const std::vector<int>& slotStage,
                                           const std::vector<double>& stageFlops);

// The α–β cost of one message of b bytes per worker through the run's
// architecture. `workers` is the workers' group (a prefix of `world`; null
// on servers); every rank of `world` calls it (the MPI calibration uses the
// first two collective ranges of `tag`'s kScheduleTagSpan; the third is the
// trainer's, for the probe).
// `tables`: a payload-free simulation's (worker_compute.h), else null.
sched::CommCost messageCost(const ResolvedConfig& config, Transport& world, Transport* workers,
                            int workerCount, Tag tag, PayloadFreeTables* tables = nullptr);

// α and β of the run's own network, measured: rank 0 times ring all-reduces
// of 256 B and 4 MiB among the workers (median of 3) and broadcasts the fit
// of 2(p−1)α + 2(p−1)/p·bβ; every rank of `world` calls it, with a tag
// range of two kCollectiveTagSpan. Set-up time, not training.
struct MeasuredAlphaBeta {
  double alpha = 0, beta = 0;
};
MeasuredAlphaBeta measureAlphaBeta(Transport& world, Transport* workers, int workerCount, Tag tag,
                                   PayloadFreeTables* tables = nullptr);

// Broadcasts `values` from rank 0 of `world` (binomial tree, `tag`); with
// `tables` and a payload-free world, the values travel through the tables
// while the same messages are sent.
void broadcastValues(Transport& world, std::span<double> values, Tag tag,
                     PayloadFreeTables* tables);

}  // namespace tetrad::train
