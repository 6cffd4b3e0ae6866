// A retimed run as a run folder: the original run's results on another
// network, in the files every reader of run folders already reads
// (`tetrad retime RUN --cluster SPEC --out DIR --as-run`, and sweeps with
// `retime = true`, docs/experiments.md).
//
// A synchronous run's trajectory does not depend on the network (retime.h),
// so a run of the same method on another network of the same worker count
// would compute the same losses and accuracies at the same iterations; only
// its clock and the bytes' timing differ. The folder written here holds
//   timing-only/   the timing-only replay on the new network (retime.h);
//   config.json    the original's configuration with the replay's cluster,
//                  network model, compute model and simulator items, and
//                  "retimed_from": the original folder;
//   summary.json   the replay's times, bytes and per-rank figures with the
//                  original's accuracy, loss, status, target and iteration of
//                  the target; time_to_target is the replay's training time at
//                  that iteration; "retimed_from" names the original;
//   metrics.jsonl  the original's lines, each with the replay's clock and
//                  byte counters (sim_time, wall_time, bytes_sent,
//                  bytes_received, compute_time, comm_time) from the replay's
//                  line of the same kind and iteration; a line the replay has
//                  no twin for keeps its values but loses its sim_time (null),
//                  so no time in the folder comes from the original network.
//
// No LibTorch include. Thread-safety: plain file work; one call per folder.
#pragma once

#include <string>

namespace tetrad::train {

// Writes config.json, summary.json and metrics.jsonl into `out` from the
// original run folder `original` and the timing-only replay in `replay`
// (normally out/timing-only). `timeToTarget`: the replay's time at the
// original's iteration to target (-1: none). InvalidArgument naming the file
// when one of the inputs is missing or is not JSON; Error when a file cannot
// be written.
void writeRetimedRunFolder(const std::string& original, const std::string& replay,
                           const std::string& out, double timeToTarget);

}  // namespace tetrad::train
