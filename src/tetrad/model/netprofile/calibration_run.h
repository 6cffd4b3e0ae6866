// Calibration measurements (`tetrad calibrate`): the message times of a real
// network, over the Transport interface, for network_profile.h.
//
// Three series, each over the same geometric message sizes:
//   pingpong  rank 0 sends m bytes to rank 1, which sends them back: half
//             the round trip (one message, one direction at a time);
//   exchange  ranks 0 and 1 send m bytes to each other at once and wait for
//             both (both directions of the link busy, as in every step of a
//             ring all-reduce on two ranks), one untimed exchange then 8 (up
//             to 64 KiB), 2 (up to 1 MiB) or 1 timed back to back: the series
//             the profile is fitted on by default;
//   ring      ring all-reduce of m bytes (m/4 floats) over all ranks.
// Each repetition starts after a barrier; rank 0's elapsed time counts. A
// point is the median of its repetitions (with min and max). Buffers are
// allocated and touched once, before the first size.
//
// Thread-safety: a collective call: every rank calls measureNetwork with the
// same plan, from its worker (not from a spawned task).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tetrad/model/netprofile/network_profile.h"
#include "tetrad/transport/tag_space.h"
#include "tetrad/transport/transport.h"

namespace tetrad::model {

struct CalibrationPlan {
  std::vector<uint64_t> sizes;  // bytes, increasing
  int repetitions = 11;         // per size up to repetitionBytes
  int minRepetitions = 5;       // per size above it (fewer at large sizes)
  uint64_t repetitionBytes = 1 << 20;
  int warmup = 2;
  bool pingpong = true;
  bool exchange = true;
  bool ring = true;
  // Rank 0: called with one line per measured point (progress).
  std::function<void(const std::string&)> progress;
};

// m0, m0·f, m0·f², ... up to m1 (rounded to whole bytes, m1 included, no
// duplicates). Throws InvalidArgument unless 1 <= m0 <= m1 and f > 1.
std::vector<uint64_t> geometricSizes(uint64_t m0, uint64_t m1, double factor);

// Repetitions of one size under `plan`: `repetitions` up to repetitionBytes,
// then proportionally fewer, at least minRepetitions.
int repetitionsFor(const CalibrationPlan& plan, uint64_t bytes);

// Runs every series on every rank (see above); returns the points on rank 0,
// nothing on the others. Throws InvalidArgument for fewer than 2 ranks.
std::vector<ProfilePoint> measureNetwork(Transport& transport, TagSpace& tags,
                                         const CalibrationPlan& plan);

}  // namespace tetrad::model
