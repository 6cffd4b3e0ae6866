#include "tetrad/model/netprofile/net_model_choice.h"

#include "tetrad/core/error.h"
#include "tetrad/model/netprofile/network_profile.h"

namespace tetrad::model {
namespace {

// SimGrid 3.32's LV08 defaults (network/latency-factor 13.01,
// network/bandwidth-factor 0.97), and its cross traffic: every flow also
// loads the reverse direction of its links with 5% of its rate, so where both
// directions of a link carry a flow (every step of ring, recursive doubling
// and Rabenseifner all-reduce on a star) each gets 0.97 / 1.05 of the link.
constexpr double kLv08LatencyFactor = 13.01;
constexpr double kLv08BandwidthFactor = 0.97 / 1.05;

bool setsModelItem(const std::string& item) {
  return item.starts_with("network/model:") || item.starts_with("network/latency-factor:") ||
         item.starts_with("network/bandwidth-factor:") || item.starts_with("network/crosstraffic:");
}

}  // namespace

NetModelChoice resolveNetModel(const std::string& name) {
  NetModelChoice choice;
  choice.name = name;
  if (name.empty()) return choice;
  if (name == "lv08") {
    choice.simConfig = {"network/model:LV08"};
    choice.latencyFactor = PiecewiseFactor({{0, kLv08LatencyFactor}}, "lv08");
    choice.bandwidthFactor = PiecewiseFactor({{0, kLv08BandwidthFactor}}, "lv08");
    choice.tcpGamma = kSimGridTcpGamma;
    return choice;
  }
  if (name == "cm02") {
    choice.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
    choice.tcpGamma = kSimGridTcpGamma;
    return choice;
  }
  if (name.starts_with("profile:")) {
    const std::string path = name.substr(8);
    TETRAD_CHECK(!path.empty(), InvalidArgument, "--net-model profile:FILE needs a file name");
    const NetworkProfile profile = loadNetworkProfile(path);
    choice.simConfig = profile.simConfig();
    choice.latencyFactor = profile.latencyFactor();
    choice.bandwidthFactor = profile.bandwidthFactor();
    choice.profileLink = profile.linkSpec;
    choice.linkBandwidth = profile.bandwidth;
    choice.linkLatency = profile.latency;
    choice.tcpGamma = kSimGridTcpGamma;
    return choice;
  }
  TETRAD_FAIL(InvalidArgument, "unknown network model '{}' (known: lv08, cm02, profile:FILE)",
              name);
}

std::vector<std::string> combineSimConfig(const NetModelChoice& choice,
                                          const std::vector<std::string>& userItems) {
  std::vector<std::string> items = choice.simConfig;
  for (const std::string& item : userItems) {
    TETRAD_CHECK(choice.name.empty() || !setsModelItem(item), InvalidArgument,
                 "--net-model {} and --sim-cfg {} both set the network model; give one of them",
                 choice.name, item);
    items.push_back(item);
  }
  return items;
}

std::string defaultNetModel(const std::vector<std::string>& userItems) {
  for (const std::string& item : userItems)
    if (setsModelItem(item)) return "";
  return "cm02";
}

std::string impliedNetModel(const std::vector<std::string>& userItems) {
  std::string implied = "lv08";
  for (const std::string& item : userItems)
    if (setsModelItem(item)) implied = "sim-cfg";
  for (const std::string& item : userItems)
    if (item.starts_with("network/model:")) implied = "sim-cfg:" + item.substr(14);
  return implied;
}

}  // namespace tetrad::model
