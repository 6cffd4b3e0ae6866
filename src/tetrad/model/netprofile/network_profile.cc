#include "tetrad/model/netprofile/network_profile.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tetrad/collectives/collective_cost.h"
#include "tetrad/core/error.h"

namespace tetrad::model {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kFormat = "tetrad-network-profile";
constexpr int kVersion = 1;

// The profile's prediction for one point.
double predictPoint(const NetworkProfile& profile, const ProfilePoint& point) {
  if (point.series == "ring") {
    CostParams params{profile.latency, 1 / profile.bandwidth};
    params.latencyFactor = profile.latencyFactor();
    params.bandwidthFactor = profile.bandwidthFactor();
    return allreduceCost(AllreduceAlgorithm::kRing, point.ranks, point.bytes / sizeof(float),
                         params);
  }
  std::vector<FitInterval> intervals;
  for (const ProfileInterval& i : profile.intervals) {
    FitInterval f;
    f.fromBytes = i.fromBytes;
    f.latencyFactor = i.latencyFactor;
    f.bandwidthFactor = i.bandwidthFactor;
    intervals.push_back(f);
  }
  return predictMessage(intervals, static_cast<double>(point.bytes), profile.fitOptions());
}

template <typename T>
T field(const Json& j, const char* key, const std::string& where) {
  auto it = j.find(key);
  TETRAD_CHECK(it != j.end(), InvalidArgument, "network profile {}: missing key '{}'", where, key);
  try {
    return it->get<T>();
  } catch (const Json::exception& e) {
    TETRAD_FAIL(InvalidArgument, "network profile {}: key '{}' has the wrong type ({})", where, key,
                it->type_name());
  }
}

void checkPositive(double value, const std::string& what, const std::string& source) {
  TETRAD_CHECK(std::isfinite(value) && value > 0, InvalidArgument,
               "network profile {}: {} must be a positive number, got {}", source, what, value);
}

}  // namespace

PiecewiseFactor NetworkProfile::latencyFactor() const {
  std::vector<FactorChunk> chunks;
  for (const ProfileInterval& i : intervals) chunks.push_back({i.fromBytes, i.latencyFactor});
  return PiecewiseFactor(std::move(chunks), "network profile latency factor");
}

PiecewiseFactor NetworkProfile::bandwidthFactor() const {
  std::vector<FactorChunk> chunks;
  for (const ProfileInterval& i : intervals) chunks.push_back({i.fromBytes, i.bandwidthFactor});
  return PiecewiseFactor(std::move(chunks), "network profile bandwidth factor");
}

std::vector<std::string> NetworkProfile::simConfig() const {
  return {"network/model:CM02", "network/crosstraffic:0",
          "network/latency-factor:" + latencyFactor().toString(),
          "network/bandwidth-factor:" + bandwidthFactor().toString()};
}

FitOptions NetworkProfile::fitOptions() const {
  FitOptions options;
  options.nominalLatency = latency;
  options.nominalBandwidth = bandwidth;
  return options;
}

std::vector<ProfilePoint> NetworkProfile::series(const std::string& name) const {
  std::vector<ProfilePoint> out;
  for (const ProfilePoint& p : points)
    if (p.series == name) out.push_back(p);
  return out;
}

void fitProfile(NetworkProfile& profile, const FitOptions& options) {
  std::vector<FitPoint> fitPoints;
  for (const ProfilePoint& p : profile.series(profile.fitSeries))
    fitPoints.push_back({static_cast<double>(p.bytes), p.seconds});
  const PiecewiseFit fit = fitPiecewise(fitPoints, options);
  profile.latency = options.nominalLatency;
  profile.bandwidth = options.nominalBandwidth;
  profile.intervals.clear();
  for (const FitInterval& f : fit.intervals)
    profile.intervals.push_back({f.fromBytes, f.latencyFactor, f.bandwidthFactor, f.alpha, f.beta});
  profile.rmsRelativeError = fit.rmsRelativeError;
  profile.maxRelativeError = fit.maxRelativeError;
  for (ProfilePoint& p : profile.points) {
    p.fitted = predictPoint(profile, p);
    p.relativeError = p.fitted / p.seconds - 1;
  }
}

std::string toJson(const NetworkProfile& profile) {
  Json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["created"] = profile.created;
  j["hosts"] = profile.hosts;
  j["ranks"] = profile.ranks;
  j["command"] = profile.command;
  j["mpi"] = {{"library", profile.mpiLibrary},
              {"mca", profile.mca},
              {"eager_limit", profile.eagerLimit},
              {"piece_bytes", profile.pieceBytes}};
  j["link"] = {
      {"spec", profile.linkSpec}, {"bandwidth", profile.bandwidth}, {"latency", profile.latency}};
  j["fit"] = {{"series", profile.fitSeries},
              {"simgrid_model", "CM02"},
              {"rms_relative_error", profile.rmsRelativeError},
              {"max_relative_error", profile.maxRelativeError}};
  Json intervals = Json::array();
  for (const ProfileInterval& i : profile.intervals) {
    intervals.push_back({{"from_bytes", i.fromBytes},
                         {"latency_factor", i.latencyFactor},
                         {"bandwidth_factor", i.bandwidthFactor},
                         {"alpha", i.alpha},
                         {"beta", i.beta}});
  }
  j["intervals"] = intervals;
  j["simgrid"] = {{"network/latency-factor", profile.latencyFactor().toString()},
                  {"network/bandwidth-factor", profile.bandwidthFactor().toString()}};
  Json points = Json::array();
  for (const ProfilePoint& p : profile.points) {
    points.push_back({{"series", p.series},
                      {"ranks", p.ranks},
                      {"bytes", p.bytes},
                      {"seconds", p.seconds},
                      {"min", p.min},
                      {"max", p.max},
                      {"repetitions", p.repetitions},
                      {"fitted", p.fitted},
                      {"relative_error", p.relativeError}});
  }
  j["points"] = points;
  return j.dump(2) + "\n";
}

NetworkProfile parseNetworkProfile(const std::string& text, const std::string& source) {
  Json j;
  try {
    j = Json::parse(text);
  } catch (const Json::parse_error& e) {
    TETRAD_FAIL(InvalidArgument, "network profile {}: not valid JSON (truncated?): {}", source,
                e.what());
  }
  TETRAD_CHECK(j.is_object(), InvalidArgument, "network profile {}: expected a JSON object",
               source);
  TETRAD_CHECK(j.value("format", "") == kFormat, InvalidArgument,
               "network profile {}: 'format' must be \"{}\"", source, kFormat);
  const int version = field<int>(j, "version", source);
  TETRAD_CHECK(version == kVersion, InvalidArgument,
               "network profile {}: version {} is not supported (this tetrad reads {})", source,
               version, kVersion);
  NetworkProfile p;
  p.created = j.value("created", "");
  p.hosts = j.value("hosts", std::vector<std::string>{});
  p.ranks = j.value("ranks", 0);
  p.command = j.value("command", "");
  if (auto mpi = j.find("mpi"); mpi != j.end() && mpi->is_object()) {
    p.mpiLibrary = mpi->value("library", "");
    p.mca = mpi->value("mca", std::map<std::string, std::string>{});
    p.eagerLimit = mpi->value("eager_limit", uint64_t{0});
    p.pieceBytes = mpi->value("piece_bytes", uint64_t{0});
  }
  const Json link = field<Json>(j, "link", source);
  p.linkSpec = link.value("spec", "");
  p.bandwidth = field<double>(link, "bandwidth", source);
  p.latency = field<double>(link, "latency", source);
  checkPositive(p.bandwidth, "link.bandwidth", source);
  checkPositive(p.latency, "link.latency", source);
  const Json fit = field<Json>(j, "fit", source);
  p.fitSeries = fit.value("series", "exchange");
  p.rmsRelativeError = fit.value("rms_relative_error", 0.0);
  p.maxRelativeError = fit.value("max_relative_error", 0.0);
  const Json intervals = field<Json>(j, "intervals", source);
  TETRAD_CHECK(intervals.is_array() && !intervals.empty(), InvalidArgument,
               "network profile {}: 'intervals' must be a non-empty array", source);
  for (size_t k = 0; k < intervals.size(); ++k) {
    const std::string where = fmt::format("{} interval {}", source, k);
    ProfileInterval i;
    i.fromBytes = field<uint64_t>(intervals[k], "from_bytes", where);
    i.latencyFactor = field<double>(intervals[k], "latency_factor", where);
    i.bandwidthFactor = field<double>(intervals[k], "bandwidth_factor", where);
    i.alpha = intervals[k].value("alpha", p.latency * i.latencyFactor);
    i.beta = intervals[k].value("beta", 1 / (p.bandwidth * i.bandwidthFactor));
    checkPositive(i.latencyFactor, fmt::format("interval {}'s latency_factor", k), source);
    checkPositive(i.bandwidthFactor, fmt::format("interval {}'s bandwidth_factor", k), source);
    TETRAD_CHECK(i.bandwidthFactor <= 1, InvalidArgument,
                 "network profile {}: interval {}'s bandwidth_factor {} is above 1 (a simulated "
                 "flow cannot be faster than its link; calibrate against a faster nominal --link)",
                 source, k, i.bandwidthFactor);
    TETRAD_CHECK(k == 0 || i.fromBytes > p.intervals.back().fromBytes, InvalidArgument,
                 "network profile {}: intervals must start at increasing sizes, but interval {} "
                 "starts at {} bytes after {} bytes",
                 source, k, i.fromBytes, p.intervals.back().fromBytes);
    p.intervals.push_back(i);
  }
  if (auto points = j.find("points"); points != j.end()) {
    TETRAD_CHECK(points->is_array(), InvalidArgument,
                 "network profile {}: 'points' must be an array", source);
    for (size_t k = 0; k < points->size(); ++k) {
      const Json& q = (*points)[k];
      const std::string where = fmt::format("{} point {}", source, k);
      ProfilePoint point;
      point.series = field<std::string>(q, "series", where);
      point.ranks = q.value("ranks", 2);
      point.bytes = field<uint64_t>(q, "bytes", where);
      point.seconds = field<double>(q, "seconds", where);
      checkPositive(point.seconds, fmt::format("point {}'s seconds", k), source);
      point.min = q.value("min", point.seconds);
      point.max = q.value("max", point.seconds);
      point.repetitions = q.value("repetitions", 0);
      point.fitted = q.value("fitted", 0.0);
      point.relativeError = q.value("relative_error", 0.0);
      p.points.push_back(point);
    }
  }
  return p;
}

NetworkProfile loadNetworkProfile(const std::string& path) {
  std::error_code error;
  TETRAD_CHECK(std::filesystem::is_regular_file(path, error), InvalidArgument,
               "network profile {}: no such file", path);
  std::ifstream in(path);
  TETRAD_CHECK(in, InvalidArgument, "network profile {}: cannot be read", path);
  std::stringstream text;
  text << in.rdbuf();
  return parseNetworkProfile(text.str(), path);
}

void saveNetworkProfile(const NetworkProfile& profile, const std::string& path) {
  std::ofstream out(path);
  TETRAD_CHECK(out, InvalidArgument, "cannot write the network profile to {}", path);
  out << toJson(profile);
  TETRAD_CHECK(out.good(), InvalidArgument, "writing the network profile to {} failed", path);
}

}  // namespace tetrad::model
