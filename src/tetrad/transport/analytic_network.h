// AnalyticNetwork: the engine side of the analytic engine (`tetrad train
// --timing-only --engine analytic`), for what-if runs on thousands of
// simulated workers.
//
// SimGrid simulates every message of a collective with its max-min sharing
// solver: a ring all-reduce on 1,024 ranks is 2.1 million messages, about
// 25 CPU seconds per iteration here. The analytic engine keeps SimGrid for
// the ranks (actors, clocks, compute, point-to-point messages of parameter
// servers and gossip) but evaluates each collective in closed form: the
// ranks of the collective meet (meet() below); the collective's own code is
// replayed once per distinct call against a recording transport and its
// messages are timed with the per-message model of this network
// (messageSeconds) under the rendezvous rule of the simulator (a transfer
// starts when both its send and its receive are posted); every rank then
// resumes at the latest arrival plus its own finish time, with the
// collective's exact per-peer traffic counted (collectives/analytic_
// collective.h). Contention between messages is not modelled: each message
// has its links to itself. That is exact on a star under CM02 without cross
// traffic for every collective here (one message per rank and direction at
// a time), and the engine refuses what it would get wrong (other network
// models, cross traffic, fat-trees, tori, platform files).
//
// Who owns what: the simulation owns the AnalyticNetwork
// (transport/sim/analytic_meetings.h); every SimTransport of the run hands
// out a pointer to it. The Meeting objects are shared by the ranks of one
// call.
//
// Threads: only from the run's actors (SimGrid runs one at a time).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad {

// One collective call as the ranks of its group met it.
struct Meeting {
  // What every rank called (kind, algorithm, lengths): equal on every rank,
  // else the first rank's is kept and `mismatch` names the first other.
  std::string signature;
  int mismatchRank = -1;
  std::string mismatchSignature;
  // Each rank's value (e.g. its packet's size), indexed by group rank.
  std::vector<uint64_t> values;
  // Filled by the first rank that evaluates the call; shared by the others.
  std::shared_ptr<const void> result;
};

class AnalyticNetwork {
 public:
  virtual ~AnalyticNetwork() = default;

  // Seconds one message of `bytes` takes from rank `from` to rank `to`
  // (world ranks), alone on its links: latency · latencyFactor(bytes) +
  // bytes / min(bandwidth · bandwidthFactor(bytes), TCP-gamma / (2 ·
  // latency)), as CM02 charges it; a rank's message to itself crosses its
  // loopback (50 GB/s, no latency).
  virtual double messageSeconds(int from, int to, uint64_t bytes) const = 0;
  // "star, α = 25 µs, 1/β = 1.25 GB/s, CM02" — for outputs and cache keys.
  virtual std::string describe() const = 0;

  // Blocks the calling rank (`rank` of a group of ranks 0..groupSize-1)
  // until every rank of the group has called meet for the same `tag`, the
  // k-th call of a rank for a tag meeting the k-th calls of the others.
  // Returns at the latest arrival on the engine's clock. Throws
  // TimeoutError naming the rank, the tag and how many ranks came after
  // `timeoutSeconds` of simulated time.
  virtual std::shared_ptr<Meeting> meet(int rank, int groupSize, Tag tag,
                                        const std::string& signature, uint64_t value,
                                        double timeoutSeconds) = 0;
};

}  // namespace tetrad
