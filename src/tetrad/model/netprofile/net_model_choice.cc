#include "tetrad/model/netprofile/net_model_choice.h"

#include <fmt/format.h>

#include <cstring>

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

NetModelChoice lv08Choice(const std::string& /*argument*/) {
  NetModelChoice choice;
  choice.simConfig = {"network/model:LV08"};
  choice.latencyFactor = PiecewiseFactor({{0, kLv08LatencyFactor}}, "lv08");
  choice.bandwidthFactor = PiecewiseFactor({{0, kLv08BandwidthFactor}}, "lv08");
  choice.tcpGamma = kSimGridTcpGamma;
  return choice;
}

NetModelChoice cm02Choice(const std::string& /*argument*/) {
  NetModelChoice choice;
  choice.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  choice.tcpGamma = kSimGridTcpGamma;
  return choice;
}

// The rate a TCP collective library (NCCL, Gloo or MPI over kernel
// sockets) achieves of a link, fitted once on half of the validation set's
// TCP points (configs/validation/, `fitted = true`): the median of the
// fractions that make each of them exact (docs/validation.md, "The one
// global constant"). The other half judges it.
constexpr double kTcpAchievedFraction = 0.41;

NetModelChoice tcpChoice(const std::string& argument) {
  NetModelChoice choice = cm02Choice(argument);
  choice.simConfig.push_back(fmt::format("network/bandwidth-factor:{}", kTcpAchievedFraction));
  choice.bandwidthFactor = PiecewiseFactor({{0, kTcpAchievedFraction}}, "tcp");
  return choice;
}

NetModelChoice profileChoice(const std::string& path) {
  TETRAD_CHECK(!path.empty(), InvalidArgument, "--net-model profile:FILE needs a file name");
  const NetworkProfile profile = loadNetworkProfile(path);
  NetModelChoice choice;
  choice.simConfig = profile.simConfig();
  choice.latencyFactor = profile.latencyFactor();
  choice.bandwidthFactor = profile.bandwidthFactor();
  choice.profileLink = profile.linkSpec;
  choice.linkBandwidth = profile.bandwidth;
  choice.linkLatency = profile.latency;
  choice.tcpGamma = kSimGridTcpGamma;
  return choice;
}

bool isPrefix(const NetModelRow& row) {
  const std::string_view name(row.name);
  return !name.empty() && name.back() == ':';
}

// The row `name` selects and the argument after a prefix row's name.
const NetModelRow* findRow(const std::string& name, std::string* argument) {
  for (const NetModelRow& row : netModelTable()) {
    if (isPrefix(row) ? name.starts_with(row.name) : name == row.name) {
      if (argument != nullptr) *argument = isPrefix(row) ? name.substr(strlen(row.name)) : "";
      return &row;
    }
  }
  return nullptr;
}

}  // namespace

const std::vector<NetModelRow>& netModelTable() {
  static const std::vector<NetModelRow> rows = {
      {"cm02", "cm02", "alpha-beta with SimGrid's TCP window bound, no cross traffic; the default",
       cm02Choice},
      {"lv08", "lv08", "SimGrid's own default: latency x13.01, bandwidth x0.97, cross traffic",
       lv08Choice},
      {"tcp", "tcp",
       fmt::format("cm02 with every link at {} of its bandwidth, the rate TCP collective "
                   "libraries achieved in published runs (docs/validation.md)",
                   kTcpAchievedFraction),
       tcpChoice},
      {"profile:", "profile:FILE", "a network calibrated by `tetrad calibrate`, docs/fidelity.md",
       profileChoice},
  };
  return rows;
}

std::string netModelHelp() {
  std::string help;
  const auto& rows = netModelTable();
  for (size_t i = 0; i < rows.size(); ++i) {
    if (i > 0) help += i + 1 == rows.size() ? " or " : ", ";
    help += fmt::format("{} ({})", rows[i].usage, rows[i].help);
  }
  return help;
}

std::string knownNetModels() {
  std::string known;
  for (const NetModelRow& row : netModelTable())
    known += (known.empty() ? "" : ", ") + std::string(row.usage);
  return known;
}

bool isNetModelName(const std::string& name) {
  return findRow(name, nullptr) != nullptr;
}

NetModelChoice resolveNetModel(const std::string& name) {
  if (name.empty()) return NetModelChoice{};
  std::string argument;
  const NetModelRow* row = findRow(name, &argument);
  TETRAD_CHECK(row != nullptr, InvalidArgument, "unknown network model '{}' (known: {})", name,
               knownNetModels());
  NetModelChoice choice = row->resolve(argument);
  choice.name = name;
  return choice;
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
