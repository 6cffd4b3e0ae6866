// Chrome trace writer: a run's timeline events (timeline.h) as the JSON
// object form of the Trace Event Format, which Perfetto (ui.perfetto.dev)
// and chrome://tracing open:
//
//   {"traceEvents": [...], "displayTimeUnit": "ms",
//    "otherData": {"clock": "simulated" | "wall", "producer": "tetrad",
//                  "ranks": R, "events": N}}
//
// Each event is a complete event ("ph": "X") with "ts" and "dur" in
// microseconds, "pid" = rank, "tid" = track (0 compute, 1 communication,
// 2 server), "name", "cat" = category and "args": {"iteration"} plus
// "bytes" when non-zero and "bucket" when >= 0. Metadata events ("ph": "M")
// name each rank that has events ("process_name": "rank 3") and each of its
// tracks ("thread_name": "compute", "communication", "server").
//
// Thread-safety: a free function; one writer per path.
#pragma once

#include <span>
#include <string>

#include "tetrad/train/record/timeline.h"

namespace tetrad::train {

// Writes the trace to `path` atomically: to `path`.tmp first, then renamed
// over `path`, so a reader never sees a partial file. `clock` is
// "simulated" or "wall" (InvalidArgument otherwise); a file that cannot be
// written is an InvalidArgument naming the path, and leaves no temporary
// file behind.
void writeChromeTrace(const std::string& path, std::span<const TimelineEvent> events,
                      const std::string& clock);

}  // namespace tetrad::train
