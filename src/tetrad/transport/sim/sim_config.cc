#include "tetrad/transport/sim/sim_config.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <exception>
#include <functional>
#include <map>
#include <simgrid/kernel/resource/NetworkModelIntf.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <stdexcept>
#include <string_view>
#include <unordered_set>
#include <vector>
#include <xbt/config.hpp>

#include "tetrad/core/error.h"

// SimGrid's configuration lock (exported by libsimgrid, not in its public
// headers): 2 once a platform exists, after which model items refuse to
// change — for the rest of the process, as it is never reset when an engine
// is destroyed. SimGrid's own platform code sets it the same way. Between two
// runs no platform of the old engine is used any more, so tetrad lowers it
// back to 1 ("configuration open") before applying the next run's items.
extern int _sg_cfg_init_status;  // NOLINT(bugprone-reserved-identifier)

namespace tetrad::sim {
namespace {

namespace config = simgrid::config;

enum class ItemType { kString, kDouble, kInt, kBool };

struct ItemInfo {
  ItemType type;
  // For string items: the values SimGrid accepts (it aborts on any other).
  std::vector<std::string_view> values;
};

// The SimGrid 3.32 items tetrad accepts, with their types (SimGrid's typed
// getter does not check the type, so it must be known here).
const std::map<std::string_view, ItemInfo>& supportedItems() {
  static const std::vector<std::string_view> kOptim = {"Lazy", "TI", "Full"};
  static const std::vector<std::string_view> kSolver = {"maxmin", "fairbottleneck", "bmf"};
  static const std::map<std::string_view, ItemInfo> items = {
      {"network/model", {ItemType::kString, {"LV08", "CM02", "Constant", "SMPI", "IB"}}},
      {"network/optim", {ItemType::kString, kOptim}},
      {"network/solver", {ItemType::kString, kSolver}},
      {"network/crosstraffic", {ItemType::kBool, {}}},
      {"network/TCP-gamma", {ItemType::kDouble, {}}},
      {"network/bandwidth-factor", {ItemType::kDouble, {}}},
      {"network/latency-factor", {ItemType::kDouble, {}}},
      {"network/weight-S", {ItemType::kDouble, {}}},
      {"network/loopback-bw", {ItemType::kDouble, {}}},
      {"network/loopback-lat", {ItemType::kDouble, {}}},
      {"network/maxmin-selective-update", {ItemType::kBool, {}}},
      {"cpu/model", {ItemType::kString, {"Cas01"}}},
      {"cpu/optim", {ItemType::kString, kOptim}},
      {"host/model", {ItemType::kString, {"default", "compound", "ptask_L07"}}},
      {"maxmin/precision", {ItemType::kDouble, {}}},
      {"maxmin/concurrency-limit", {ItemType::kInt, {}}},
      {"surf/precision", {ItemType::kDouble, {}}},
  };
  return items;
}

std::string currentValue(const std::string& name, ItemType type) {
  switch (type) {
    case ItemType::kString:
      return config::get_value<std::string>(name);
    case ItemType::kDouble:
      return fmt::format("{}", config::get_value<double>(name));  // shortest exact form
    case ItemType::kInt:
      return fmt::format("{}", config::get_value<int>(name));
    case ItemType::kBool:
      return config::get_value<bool>(name) ? "yes" : "no";
  }
  return {};
}

// Values the items had before tetrad first changed them, by name.
std::map<std::string, std::string>& originalValues() {
  static std::map<std::string, std::string> values;
  return values;
}

void setValue(const std::string& name, const std::string& value, const std::string& item) {
  try {
    config::set_as_string(name.c_str(), value);
  } catch (const std::exception& e) {
    TETRAD_FAIL(InvalidArgument, "invalid SimGrid configuration item '{}': {}", item, e.what());
  }
}

std::string supportedList() {
  std::string list;
  for (const auto& [name, info] : supportedItems())
    list += (list.empty() ? "" : ", ") + std::string(name);
  return list;
}

// The items whose value may also be SimGrid's per-size interval syntax.
PiecewiseFactor* piecewiseTarget(const std::string& name, SimFactors& factors) {
  if (name == "network/latency-factor") return &factors.latency;
  if (name == "network/bandwidth-factor") return &factors.bandwidth;
  return nullptr;
}

// A factor callback: `factor` at the message's size between two hosts, 1 on
// a host's loopback.
std::function<simgrid::kernel::resource::NetworkModelIntf::NetworkFactorCb> callback(
    const PiecewiseFactor& factor) {
  return [factor](double size, const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst,
                  const std::vector<simgrid::s4u::Link*>&,
                  const std::unordered_set<simgrid::s4u::NetZone*>&) {
    return src == dst ? 1.0 : factor.at(size);
  };
}

}  // namespace

SimFactors applySimConfig(const std::vector<std::string>& items) {
  SimFactors factors;
  if (_sg_cfg_init_status > 1) _sg_cfg_init_status = 1;
  for (const auto& [name, value] : originalValues()) setValue(name, value, name + ":" + value);
  for (const std::string& item : items) {
    size_t colon = item.find(':');
    TETRAD_CHECK(colon != std::string::npos && colon > 0, InvalidArgument,
                 "invalid SimGrid configuration item '{}': expected NAME:VALUE "
                 "(e.g. network/model:CM02)",
                 item);
    std::string name = item.substr(0, colon);
    auto it = supportedItems().find(name);
    TETRAD_CHECK(it != supportedItems().end(), Unsupported,
                 "SimGrid configuration item '{}' is not supported by tetrad (supported: {})", item,
                 supportedList());
    const ItemInfo& info = it->second;
    std::string value = item.substr(colon + 1);
    if (PiecewiseFactor* target = piecewiseTarget(name, factors);
        target != nullptr && isPiecewiseValue(value)) {
      *target = PiecewiseFactor::parse(value, "SimGrid configuration item '" + name + "'");
      continue;
    }
    if (info.type == ItemType::kString) {
      TETRAD_CHECK(std::find(info.values.begin(), info.values.end(), value) != info.values.end(),
                   InvalidArgument, "invalid SimGrid configuration item '{}': '{}' accepts {}",
                   item, name, fmt::join(info.values, ", "));
    }
    originalValues().try_emplace(name, currentValue(name, info.type));
    setValue(name, value, item);
  }
  return factors;
}

void installFactors(const SimFactors& factors) {
  if (factors.latency.empty() && factors.bandwidth.empty()) return;
  simgrid::kernel::resource::NetworkModelIntf* model =
      simgrid::s4u::Engine::get_instance()->get_netzone_root()->get_network_model();
  TETRAD_CHECK(model != nullptr, InvalidArgument,
               "per-size network factors: the platform has no network model");
  try {
    if (!factors.latency.empty()) model->set_lat_factor_cb(callback(factors.latency));
    if (!factors.bandwidth.empty()) model->set_bw_factor_cb(callback(factors.bandwidth));
  } catch (const std::invalid_argument& e) {
    TETRAD_FAIL(InvalidArgument, "per-size network factors: SimGrid refused them: {}", e.what());
  }
}

}  // namespace tetrad::sim
