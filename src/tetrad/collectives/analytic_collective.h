// Collectives on the analytic engine (transport/analytic_network.h).
//
// When a transport is on the analytic engine, each collective entry point
// (allreduce, allgatherv, broadcast, reduce-scatter, barrier, the byte
// all-gather) hands its algorithm to runAnalytically instead of running it:
//   1. the ranks of the call meet (every rank must make the same call;
//      a different one is a ProtocolError naming both ranks' calls);
//   2. the first rank to leave replays the algorithm once for every rank
//      against a recording transport (the collective's own code: the same
//      messages, sizes, tags and order as a real run), then times those
//      messages with the network's per-message model under the simulator's
//      rendezvous rule — a transfer starts when both its send and its
//      receive are posted and ends messageSeconds later; a wait ends when
//      its transfer does. The result (each rank's finish time after the
//      common start and its per-peer traffic) is cached per call signature
//      and network, so an iteration that repeats a call costs O(peers);
//   3. every rank sleeps until the latest arrival plus its finish time and
//      counts its traffic.
// Ranks therefore start a collective together (at the latest arrival), as
// a barrier would; on a contention-free network with simultaneous arrivals
// this equals the simulator's time for every algorithm here.
//
// Thread-safety: from the engine's actors only (one at a time); the cache
// is guarded by a mutex that is never contended there.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad::detail {

// The algorithm of one call, run on `transport` (the rank's own or a
// recording one) over `scratch`, a buffer of the call's data size that
// stands in for the rank's data while recording.
using AnalyticAlgorithm = std::function<void(Transport& transport, MutableBytes scratch)>;

// Runs the call analytically and returns true when `transport` is on the
// analytic engine; returns false (doing nothing) otherwise. `signature`
// names the call completely except for the tag (kind, algorithm, lengths,
// root, wire, op): calls with equal signatures on equal networks and group
// sizes are timed once. `scratchBytes`: the data size the algorithm needs.
bool runAnalytically(Transport& transport, const std::string& signature, Tag tag,
                     size_t scratchBytes, const AnalyticAlgorithm& algorithm);

// The byte all-gather's ring (allgather_bytes.cc) with this rank's packet
// of `bytes`: every rank's packet size in rank order, or nullopt when
// `transport` is not on the analytic engine.
std::optional<std::vector<uint64_t>> allgatherBytesAnalytically(Transport& transport,
                                                                uint64_t bytes, Tag tag);

}  // namespace tetrad::detail
