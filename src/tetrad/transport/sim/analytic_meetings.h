// AnalyticMeetings: the analytic engine's network (transport/analytic_
// network.h) on a simulated star or two-level cluster — the per-message
// model of CM02 for a message alone on its links, and the meeting point of
// the ranks of a collective (a SimGrid semaphore per call; the last rank to
// arrive releases the others at its own time).
//
// make() refuses (InvalidArgument, one line) what the engine would time
// wrongly: a network model other than CM02, cross traffic, a fat-tree,
// torus or platform file, and a run that carries payloads.
//
// Owned by runSimulation for one run; threads: the run's actors only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "tetrad/transport/analytic_network.h"
#include "tetrad/transport/piecewise_factor.h"
#include "tetrad/transport/sim/cluster_spec.h"

namespace tetrad::sim {

class AnalyticMeetings final : public AnalyticNetwork {
 public:
  // `simConfig`: the run's SimGrid items (must choose CM02 and turn cross
  // traffic off); `latency`/`bandwidth`: the run's per-size factors.
  static std::unique_ptr<AnalyticMeetings> make(const ClusterSpec& spec,
                                                const std::vector<std::string>& simConfig,
                                                PiecewiseFactor latency, PiecewiseFactor bandwidth,
                                                bool payloadFree);

  double messageSeconds(int from, int to, uint64_t bytes) const override;
  std::string describe() const override { return description_; }
  std::shared_ptr<Meeting> meet(int rank, int groupSize, Tag tag, const std::string& signature,
                                uint64_t value, double timeoutSeconds) override;

 private:
  struct Link {
    double latency = 0;    // seconds, end to end (the route's)
    double bandwidth = 0;  // bytes/s, the route's narrowest link
  };
  struct Pending;
  AnalyticMeetings() = default;
  double linkSeconds(const Link& link, uint64_t bytes) const;

  Link across_;           // between nodes (a star: between any two hosts)
  Link inside_;           // inside a node (two-level only)
  int ranksPerNode_ = 1;  // 1: a star
  double tcpGamma_ = 0;   // bytes; 0: no window bound
  PiecewiseFactor latencyFactor_, bandwidthFactor_;
  std::string description_;
  // Calls so far per (rank, tag, group size), and the meetings not yet full.
  std::unordered_map<uint64_t, uint64_t> calls_;
  std::map<std::tuple<Tag, int, uint64_t>, std::shared_ptr<Pending>> pending_;
};

}  // namespace tetrad::sim
