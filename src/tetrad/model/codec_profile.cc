// Codec profiles (codec_profile.h): parsing, lookup, the modelled seconds.
#include "tetrad/model/codec_profile.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tetrad/compress/spec.h"
#include "tetrad/core/error.h"

#ifndef TETRAD_CONFIG_DIR
#define TETRAD_CONFIG_DIR "configs"
#endif

namespace tetrad::model {
namespace {

using Json = nlohmann::ordered_json;

double number(const Json& entry, const std::string& key, const std::string& where) {
  TETRAD_CHECK(entry.contains(key), InvalidArgument, "codec profile {}: missing key '{}'", where,
               key);
  TETRAD_CHECK(entry[key].is_number(), InvalidArgument, "codec profile {}: '{}' must be a number",
               where, key);
  const double value = entry[key].get<double>();
  TETRAD_CHECK(value >= 0 && std::isfinite(value), InvalidArgument,
               "codec profile {}: '{}' must be a finite number >= 0, got {}", where, key, value);
  return value;
}

std::string text(const Json& j, const std::string& key, const std::string& where) {
  TETRAD_CHECK(j.contains(key) && j[key].is_string() && !j[key].get<std::string>().empty(),
               InvalidArgument, "codec profile {}: missing key '{}' (a non-empty string)", where,
               key);
  return j[key].get<std::string>();
}

CodecRate rateOf(const Json& entry, const std::string& where) {
  TETRAD_CHECK(entry.is_object(), InvalidArgument, "codec profile {}: must be an object", where);
  CodecRate rate;
  rate.encodeSecondsPerElement = 1e-9 * number(entry, "encode_ns_per_element", where);
  rate.decodeSecondsPerElement = 1e-9 * number(entry, "decode_ns_per_element", where);
  rate.encodeSecondsPerCall = 1e-6 * number(entry, "encode_us_per_call", where);
  rate.decodeSecondsPerCall = 1e-6 * number(entry, "decode_us_per_call", where);
  if (entry.contains("scale_by_first_parameter")) {
    TETRAD_CHECK(entry["scale_by_first_parameter"].is_boolean(), InvalidArgument,
                 "codec profile {}: 'scale_by_first_parameter' must be true or false", where);
    rate.scaleByFirstParameter = entry["scale_by_first_parameter"].get<bool>();
  }
  rate.source = text(entry, "source", where);
  return rate;
}

const CodecRate& rateFor(const CodecProfile& profile, const std::string& family) {
  const auto it = profile.entries.find(family);
  TETRAD_CHECK(it != profile.entries.end(), InvalidArgument,
               "codec profile '{}' ({}) has no entry for compressor '{}' (it has: {}); add one, "
               "or run with --codec-cost none",
               profile.name, profile.path, family, fmt::join(profile.families(), ", "));
  return it->second;
}

}  // namespace

std::vector<std::string> CodecProfile::families() const {
  std::vector<std::string> names;
  for (const auto& [name, rate] : entries) names.push_back(name);
  return names;
}

void CodecProfile::checkCovers(const Compressor& compressor) const {
  if (compressor.isIdentity()) return;
  const CompressorParams spec = parseCompressorSpec(compressor.spec());
  rateFor(*this, spec.name);
  if (spec.errorFeedback) rateFor(*this, "ef");
}

double CodecProfile::seconds(const Compressor& compressor, CodecWork kind, size_t elements) const {
  if (compressor.isIdentity()) return 0;
  const CompressorParams spec = parseCompressorSpec(compressor.spec());
  const CodecRate& rate = rateFor(*this, spec.name);
  const double n = double(elements);
  const double scale = rate.scaleByFirstParameter && !spec.params.empty()
                           ? spec.positiveNumber(0, "first parameter")
                           : 1.0;
  double seconds = kind == CodecWork::kEncode
                       ? rate.encodeSecondsPerCall + n * scale * rate.encodeSecondsPerElement
                       : rate.decodeSecondsPerCall + n * scale * rate.decodeSecondsPerElement;
  if (spec.errorFeedback && kind == CodecWork::kEncode) {
    const CodecRate& ef = rateFor(*this, "ef");
    seconds += ef.encodeSecondsPerCall + n * ef.encodeSecondsPerElement;
  }
  return seconds;
}

CodecProfile parseCodecProfile(const std::string& body, const std::string& source) {
  Json j;
  try {
    j = Json::parse(body);
  } catch (const nlohmann::json::exception& e) {
    TETRAD_FAIL(InvalidArgument, "codec profile {}: not valid JSON ({})", source, e.what());
  }
  TETRAD_CHECK(j.is_object(), InvalidArgument, "codec profile {}: must be a JSON object", source);
  CodecProfile profile;
  profile.path = source;
  profile.name = text(j, "name", source);
  profile.device = text(j, "device", source);
  profile.source = text(j, "source", source);
  TETRAD_CHECK(
      j.contains("compressors") && j["compressors"].is_object() && !j["compressors"].empty(),
      InvalidArgument, "codec profile {}: missing key 'compressors' (an object)", source);
  for (const auto& [family, entry] : j["compressors"].items()) {
    profile.entries[family] = rateOf(entry, fmt::format("{} compressors.{}", source, family));
  }
  return profile;
}

std::string codecProfileFolder() {
  const char* env = std::getenv("TETRAD_CONFIG_DIR");
  return std::string(env != nullptr && *env != '\0' ? env : TETRAD_CONFIG_DIR) + "/codec";
}

CodecProfile loadCodecProfile(const std::string& nameOrPath) {
  TETRAD_CHECK(!nameOrPath.empty(), InvalidArgument, "codec profile: empty name");
  std::string path = nameOrPath;
  const bool isName =
      nameOrPath.find('/') == std::string::npos && nameOrPath.find(".json") == std::string::npos;
  if (isName) path = codecProfileFolder() + "/" + nameOrPath + ".json";
  std::ifstream in(path);
  if (!in) {
    std::vector<std::string> shipped;
    std::error_code ec;
    for (const auto& file : std::filesystem::directory_iterator(codecProfileFolder(), ec)) {
      if (file.path().extension() == ".json") shipped.push_back(file.path().stem().string());
    }
    std::sort(shipped.begin(), shipped.end());
    TETRAD_FAIL(InvalidArgument, "codec profile '{}': cannot read {} (shipped: {})", nameOrPath,
                path, fmt::join(shipped, ", "));
  }
  std::ostringstream body;
  body << in.rdbuf();
  return parseCodecProfile(body.str(), path);
}

std::string toJson(const CodecProfile& profile) {
  Json j;
  j["name"] = profile.name;
  j["device"] = profile.device;
  j["source"] = profile.source;
  Json compressors = Json::object();
  for (const auto& [family, r] : profile.entries) {
    Json e;
    e["encode_ns_per_element"] = r.encodeSecondsPerElement * 1e9;
    e["decode_ns_per_element"] = r.decodeSecondsPerElement * 1e9;
    e["encode_us_per_call"] = r.encodeSecondsPerCall * 1e6;
    e["decode_us_per_call"] = r.decodeSecondsPerCall * 1e6;
    if (r.scaleByFirstParameter) e["scale_by_first_parameter"] = true;
    e["source"] = r.source;
    compressors[family] = e;
  }
  j["compressors"] = compressors;
  return j.dump(2) + "\n";
}

}  // namespace tetrad::model
