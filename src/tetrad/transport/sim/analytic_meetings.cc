#include "tetrad/transport/sim/analytic_meetings.h"

#include <fmt/format.h>

#include <algorithm>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string_view>

#include "tetrad/core/error.h"

namespace tetrad::sim {
namespace {

// As platform.cc: a rank's messages to itself, shared memory.
constexpr double kLoopbackBandwidth = 50e9;
// SimGrid's default network/TCP-gamma (bytes): a flow's rate is at most
// gamma / (2 · route latency) under CM02.
constexpr double kDefaultTcpGamma = 4194304;

std::string withUnit(double bytesPerSecond) {
  return bytesPerSecond >= 1e9 ? fmt::format("{:.4g} GB/s", bytesPerSecond / 1e9)
                               : fmt::format("{:.4g} MB/s", bytesPerSecond / 1e6);
}

}  // namespace

struct AnalyticMeetings::Pending {
  std::shared_ptr<Meeting> meeting = std::make_shared<Meeting>();
  simgrid::s4u::SemaphorePtr released = simgrid::s4u::Semaphore::create(0);
  int arrived = 0;
};

std::unique_ptr<AnalyticMeetings> AnalyticMeetings::make(const ClusterSpec& spec,
                                                         const std::vector<std::string>& simConfig,
                                                         PiecewiseFactor latency,
                                                         PiecewiseFactor bandwidth,
                                                         bool payloadFree) {
  TETRAD_CHECK(payloadFree, InvalidArgument,
               "--engine analytic needs payload-free messages (a parameter server's timing-only "
               "run carries its packets): use the simgrid engine");
  TETRAD_CHECK(spec.topology == Topology::kStar || spec.topology == Topology::kTwoLevel,
               InvalidArgument,
               "--engine analytic models stars and two-level clusters without contention; '{}' "
               "has shared links it would not model (use the simgrid engine)",
               spec.text);
  std::unique_ptr<AnalyticMeetings> net(new AnalyticMeetings());
  net->tcpGamma_ = kDefaultTcpGamma;
  bool cm02 = false, noCrossTraffic = false;
  for (const std::string& item : simConfig) {
    const size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    const std::string value = colon == std::string::npos ? "" : item.substr(colon + 1);
    if (name == "network/model") {
      cm02 = value == "CM02";
    } else if (name == "network/crosstraffic") {
      noCrossTraffic = value == "0" || value == "no" || value == "false";
    } else if (name == "network/TCP-gamma" || name == "network/TCP_gamma") {
      net->tcpGamma_ = std::stod(value);
    } else if (name == "network/latency-factor") {
      latency = PiecewiseFactor::parse(value, name);
    } else if (name == "network/bandwidth-factor") {
      bandwidth = PiecewiseFactor::parse(value, name);
    } else if (name.starts_with("network/") && name != "network/optim" &&
               name != "network/maxmin-selective-update" && name != "network/weight-S") {
      TETRAD_FAIL(InvalidArgument, "--engine analytic does not model --sim-cfg {}", item);
    }
  }
  TETRAD_CHECK(cm02 && noCrossTraffic, InvalidArgument,
               "--engine analytic evaluates CM02 without cross traffic: give --net-model cm02 "
               "or profile:FILE (SimGrid's default LV08 shares bandwidth in ways it does not "
               "model)");
  net->latencyFactor_ = std::move(latency);
  net->bandwidthFactor_ = std::move(bandwidth);
  if (spec.topology == Topology::kStar) {
    net->across_ = {spec.link.latency, spec.link.bandwidth};
    net->description_ =
        fmt::format("analytic (contention-free CM02): star, α = {:.4g} us, 1/β = {}",
                    spec.link.latency * 1e6, withUnit(spec.link.bandwidth));
  } else {
    net->ranksPerNode_ = spec.ranksPerNode;
    net->inside_ = {spec.intraLink.latency, spec.intraLink.bandwidth};
    net->across_ = {spec.intraLink.latency + spec.link.latency,
                    std::min(spec.intraLink.bandwidth, spec.link.bandwidth)};
    net->description_ = fmt::format(
        "analytic (contention-free CM02): {} nodes x {}, inside α = {:.4g} us, 1/β = {}; across "
        "α = {:.4g} us, 1/β = {}",
        spec.nodes, spec.ranksPerNode, net->inside_.latency * 1e6, withUnit(net->inside_.bandwidth),
        net->across_.latency * 1e6, withUnit(net->across_.bandwidth));
  }
  // The description keys cached replays (analytic_collective.cc): it names
  // everything messageSeconds depends on.
  if (net->tcpGamma_ != kDefaultTcpGamma) {
    net->description_ += fmt::format(", TCP-gamma {} bytes", net->tcpGamma_);
  }
  if (!net->latencyFactor_.empty() || !net->bandwidthFactor_.empty()) {
    net->description_ +=
        fmt::format(", latency factor {}, bandwidth factor {}",
                    net->latencyFactor_.empty() ? "1" : net->latencyFactor_.toString(),
                    net->bandwidthFactor_.empty() ? "1" : net->bandwidthFactor_.toString());
  }
  return net;
}

double AnalyticMeetings::linkSeconds(const Link& link, uint64_t bytes) const {
  const double size = static_cast<double>(bytes);
  // SimGrid bounds the rate by the TCP window first, then applies the
  // bandwidth factor (measured: LV08 at 400 Gb/s, 1 ms moves 0.97 of the
  // window's 2.1 GB/s).
  double rate = link.bandwidth;
  if (tcpGamma_ > 0 && link.latency > 0) rate = std::min(rate, tcpGamma_ / (2 * link.latency));
  rate *= bandwidthFactor_.at(size);
  return link.latency * latencyFactor_.at(size) + size / rate;
}

double AnalyticMeetings::messageSeconds(int from, int to, uint64_t bytes) const {
  if (from == to) return static_cast<double>(bytes) / kLoopbackBandwidth;
  if (ranksPerNode_ > 1 && from / ranksPerNode_ == to / ranksPerNode_) {
    return linkSeconds(inside_, bytes);
  }
  return linkSeconds(across_, bytes);
}

std::shared_ptr<Meeting> AnalyticMeetings::meet(int rank, int groupSize, Tag tag,
                                                const std::string& signature, uint64_t value,
                                                double timeoutSeconds) {
  constexpr int kMaxRanks = 1 << 17;
  TETRAD_CHECK(groupSize >= 1 && groupSize < kMaxRanks && rank >= 0 && rank < groupSize,
               InvalidArgument, "analytic engine: rank {} in a group of {} ranks", rank, groupSize);
  const uint64_t callKey = (uint64_t(tag) << 34) | (uint64_t(rank) << 17) | uint64_t(groupSize);
  const uint64_t call = calls_[callKey]++;
  const auto key = std::make_tuple(tag, groupSize, call);
  auto [it, inserted] = pending_.try_emplace(key, nullptr);
  if (inserted) {
    it->second = std::make_shared<Pending>();
    it->second->meeting->signature = signature;
    it->second->meeting->values.assign(size_t(groupSize), 0);
  }
  std::shared_ptr<Pending> pending = it->second;
  Meeting& meeting = *pending->meeting;
  if (signature != meeting.signature && meeting.mismatchRank < 0) {
    meeting.mismatchRank = rank;
    meeting.mismatchSignature = signature;
  }
  meeting.values[size_t(rank)] = value;
  if (++pending->arrived == groupSize) {
    pending_.erase(it);
    for (int i = 1; i < groupSize; ++i) pending->released->release();
    return pending->meeting;
  }
  const bool timedOut = pending->released->acquire_timeout(timeoutSeconds);
  TETRAD_CHECK(!timedOut, TimeoutError,
               "rank {}: collective (tag {}) timed out after {} s of simulated time: {} of {} "
               "ranks came",
               rank, tag, timeoutSeconds, pending->arrived, groupSize);
  return pending->meeting;
}

}  // namespace tetrad::sim
