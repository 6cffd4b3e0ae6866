// Churn in simulation: workers leaving and joining a simulated run
// (--membership, docs/reliability.md "Elastic training").
//
//   --membership "leave:3@120,join@300,leave@45s"
//     leave[:K]@I    K workers (default 1) are lost during iteration I: the
//                    run continues on W-K workers from its newest checkpoint
//                    before I (--checkpoint-every), so the iterations since
//                    it are done again and their time is lost;
//     join[:K]@I     K workers join at the end of iteration I (a graceful
//                    grow: nothing is done again);
//     ...@Ts         the same at the first iteration ending at or after
//                    simulated second T.
// Every change also costs --churn-restart seconds of simulated time (the
// detection and restart of a real elastic job; `tetrad elastic` measured
// about 5 s on one machine, docs/BENCHMARKS.md).
//
// The run is simulated in segments: each ends with a checkpoint at its
// event, and the next resumes on the new worker count (an elastic resize,
// loop/rank_trainer_resize.cc) at the simulated instant the change ends,
// with the lost time counted as training time. summary.json's "membership"
// lists each event with what it cost; metrics.jsonl gets a "membership" line.
//
// Thread-safety: value types and free functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetrad::train {

struct MembershipEvent {
  bool join = false;
  int count = 1;
  int64_t iteration = 0;  // > 0, or...
  double seconds = 0;     // > 0 (simulated): at the first iteration ending then
  std::string text;       // as written
};

// Parses --membership; InvalidArgument naming the bad event. Events are
// returned in the order given, which must be increasing in iteration (and
// in time among timed ones).
std::vector<MembershipEvent> parseMembership(const std::string& text);

}  // namespace tetrad::train
