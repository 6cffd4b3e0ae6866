// Reading device profiles (device_profile.h).
#include "tetrad/train/compute/device_profile.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/core/shipped_files.h"
#include "tetrad/core/units.h"
#include "tetrad/sched/model_zoo.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const json& need(const json& j, const std::string& key, const std::string& file,
                 const std::string& where = "") {
  auto it = j.find(key);
  TETRAD_CHECK(it != j.end() && !it->is_null(), InvalidArgument,
               "device profile {}: missing key '{}{}'", file, where, key);
  return *it;
}

std::string text(const json& j, const std::string& key, const std::string& file,
                 const std::string& where = "") {
  const json& v = need(j, key, file, where);
  TETRAD_CHECK(v.is_string() && !v.get<std::string>().empty(), InvalidArgument,
               "device profile {}: key '{}{}' must be a non-empty string", file, where, key);
  return v.get<std::string>();
}

double positive(const json& j, const std::string& key, const std::string& file,
                const std::string& where = "") {
  const json& v = need(j, key, file, where);
  TETRAD_CHECK(v.is_number() && std::isfinite(v.get<double>()) && v.get<double>() > 0,
               InvalidArgument, "device profile {}: key '{}{}' must be a number > 0", file, where,
               key);
  return v.get<double>();
}

DeviceProfile parseProfile(const json& j, const std::string& file) {
  DeviceProfile p;
  p.path = file;
  p.name = text(j, "name", file);
  p.description = text(j, "description", file);
  p.source = text(j, "source", file);
  p.effectiveGflops = positive(j, "effective_gflops", file);
  p.effectiveSource = text(j, "effective_source", file);
  const json& link = need(j, "node_link", file);
  const std::string bandwidth = text(link, "bandwidth", file, "node_link.");
  const std::string latency = text(link, "latency", file, "node_link.");
  try {
    p.linkBandwidth = parseBandwidth(bandwidth);
    p.linkLatency = parseDuration(latency);
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(fmt::format("device profile {}: node_link: {}", file, e.what()));
  }
  p.linkText = bandwidth + "," + latency;
  p.linkSource = text(link, "source", file, "node_link.");
  p.codecProfile = text(j, "codec_profile", file);
  const json& list = need(j, "throughputs", file);
  TETRAD_CHECK(list.is_array(), InvalidArgument,
               "device profile {}: key 'throughputs' must be a list", file);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string where = fmt::format("throughputs[{}].", i);
    DeviceThroughput t;
    t.model = text(list[i], "model", file, where);
    TETRAD_CHECK(sched::isZooModel(t.model), InvalidArgument,
                 "device profile {}: {}model '{}' is not a zoo model (known: {})", file, where,
                 t.model, fmt::join(sched::zooModelNames(), ", "));
    t.batch = int(positive(list[i], "batch", file, where));
    t.samplesPerSecond = positive(list[i], "samples_per_second", file, where);
    t.source = text(list[i], "source", file, where);
    p.throughputs.push_back(std::move(t));
  }
  return p;
}

}  // namespace

const DeviceThroughput* DeviceProfile::throughputFor(const std::string& model) const {
  for (const DeviceThroughput& t : throughputs) {
    if (t.model == model) return &t;
  }
  // "bert-base" and "bert-base:128" name the same table when 128 is the default.
  const std::string base = model.substr(0, model.find(':'));
  for (const DeviceThroughput& t : throughputs) {
    if (t.model.substr(0, t.model.find(':')) != base) continue;
    double entry = 0, asked = 0;
    for (const sched::LayerShape& l : sched::zooLayers(t.model)) entry += l.forwardFlops;
    for (const sched::LayerShape& l : sched::zooLayers(model)) asked += l.forwardFlops;
    if (entry == asked) return &t;
  }
  return nullptr;
}

DeviceProfile loadDeviceProfile(const std::string& nameOrFile) {
  const bool isFile = nameOrFile.ends_with(".json") || nameOrFile.find('/') != std::string::npos;
  std::string file = nameOrFile;
  if (!isFile) {
    const std::vector<std::string> known = deviceNames();
    TETRAD_CHECK(std::find(known.begin(), known.end(), nameOrFile) != known.end(), InvalidArgument,
                 "unknown device '{}' (known: {}; or a profile FILE.json)", nameOrFile,
                 joinedDeviceNames());
    file = shippedConfigPath("devices/" + nameOrFile + ".json");
  }
  std::ifstream in(file);
  TETRAD_CHECK(in.good(), InvalidArgument, "device profile {}: cannot open it", file);
  json j;
  try {
    j = json::parse(in);
  } catch (const json::exception& e) {
    throw InvalidArgument(fmt::format("device profile {}: not JSON ({})", file, e.what()));
  }
  TETRAD_CHECK(j.is_object(), InvalidArgument, "device profile {}: not a JSON object", file);
  return parseProfile(j, file);
}

std::string substituteNodeLink(const std::string& cluster, const DeviceProfile* profile) {
  const std::string token = ":device:";
  const size_t at = cluster.find(token);
  if (!cluster.starts_with("sim:") || at == std::string::npos) return cluster;
  TETRAD_CHECK(profile != nullptr, InvalidArgument,
               "--cluster {}: 'device' as the first level takes the node link of a device "
               "profile: give --compute device:NAME",
               cluster);
  return cluster.substr(0, at + 1) + profile->linkText + cluster.substr(at + token.size() - 1);
}

std::string clusterWithNodeLink(const std::string& cluster, const std::string& compute) {
  if (cluster.find(":device:") == std::string::npos) return cluster;
  const std::string device = compute.empty() ? "" : model::parseComputeSpec(compute).device;
  if (device.empty()) return substituteNodeLink(cluster, nullptr);
  const DeviceProfile profile = loadDeviceProfile(device);
  return substituteNodeLink(cluster, &profile);
}

}  // namespace tetrad::train
