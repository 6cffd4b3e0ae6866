// The run's allreduce:auto selector (collectives/allreduce_auto.h): the
// network every rank predicts each all-reduce on, built once per rank at
// set-up from the same values on every rank.
//
//   simulated star or two-level cluster   the spec's α and β with the run's
//                                         network model (--net-model: its
//                                         per-size factors and TCP window),
//                                         model/network_model.h, as the
//                                         advisor and the analytic engine
//   other simulated platforms, or MPI     α and β measured on the run's own
//   without a profile                     network at set-up (ring all-reduces
//                                         of 256 B and 4 MiB, schedule_setup.h)
//   MPI with --net-model profile:FILE     the profile's nominal link and its
//                                         per-size factors (`tetrad
//                                         calibrate`); refused when it was
//                                         calibrated on another rank count
//
// Every rank of `world` calls it (servers too: the measurement is a
// collective of the world); it returns null when the run's arch is not
// allreduce:auto and reserves no tag then.
//
// Thread-safety: each rank's worker, during set-up.
#pragma once

#include <memory>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/tag_space.h"

namespace tetrad::train {

std::unique_ptr<AllreduceSelector> makeRunAllreduceSelector(const ResolvedConfig& config,
                                                            Transport& world, Transport* workers,
                                                            int workerCount, TagSpace& tags,
                                                            PayloadFreeTables* tables);

}  // namespace tetrad::train
