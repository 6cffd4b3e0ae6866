// Options shared by the gossip exchanges (neighbour_mixer.h, choco_gossip.h).
//
// A gossip step at every rank sends to and receives from its neighbours of
// that step only, with tags in [tag, tag + kGossipTagSpan). Consecutive
// steps may reuse the same tags: between one pair of ranks, messages with
// one tag arrive in order, and every step exchanges exactly one message each
// way along each edge of the step's graph. Two gossip exchanges (or a gossip
// exchange and a collective) may run concurrently on one transport only if
// their tag ranges do not overlap.
//
// Thread-safety: plain values and a pure check.
#pragma once

#include "tetrad/transport/transport.h"

namespace tetrad {

// Tags one gossip call may use, starting at GossipOptions::tag.
constexpr Tag kGossipTagSpan = 4;

struct GossipOptions {
  Tag tag = 400;
};

// Throws InvalidArgument unless [tag, tag + kGossipTagSpan) are user tags.
void checkGossipTag(Tag tag, const char* exchange);

}  // namespace tetrad
