#include "tetrad/model/compute_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/core/shipped_files.h"
#include "tetrad/core/units.h"

namespace tetrad::model {

namespace fs = std::filesystem;

std::string ComputeSpec::toString() const {
  switch (kind) {
    case Kind::kMeasured:
      return scale == 1 ? "measured" : fmt::format("measured*{}", scale);
    case Kind::kFixed:
      if (!device.empty()) return "device:" + device;
      if (samplesPerSecond > 0) return fmt::format("throughput:{}", samplesPerSecond);
      return fmt::format("fixed:{}s", seconds);
    case Kind::kFlops:
      if (!device.empty()) return "device:" + device;
      return fmt::format("flops:{}", gflops);
  }
  return "?";
}

ComputeSpec parseComputeSpec(const std::string& text) {
  ComputeSpec spec;
  if (text == "measured") return spec;
  if (text.starts_with("measured*")) {
    spec.scale = parseNumber(text.substr(9), "compute scale factor");
    TETRAD_CHECK(spec.scale > 0, InvalidArgument,
                 "invalid --compute '{}': the factor must be positive", text);
    return spec;
  }
  if (text.starts_with("fixed:")) {
    spec.kind = ComputeSpec::Kind::kFixed;
    spec.seconds = parseDuration(text.substr(6));
    return spec;
  }
  if (text.starts_with("flops:")) {
    spec.kind = ComputeSpec::Kind::kFlops;
    spec.gflops = parseNumber(text.substr(6), "GFLOPS");
    TETRAD_CHECK(spec.gflops > 0, InvalidArgument,
                 "invalid --compute '{}': GFLOPS must be positive", text);
    return spec;
  }
  if (text.starts_with("throughput:")) {
    spec.kind = ComputeSpec::Kind::kFixed;
    spec.samplesPerSecond = parseNumber(text.substr(11), "samples per second");
    TETRAD_CHECK(std::isfinite(spec.samplesPerSecond) && spec.samplesPerSecond > 0, InvalidArgument,
                 "invalid --compute '{}': the throughput (samples per second of one device) "
                 "must be positive",
                 text);
    return spec;
  }
  if (text.starts_with("device:")) {
    spec.kind = ComputeSpec::Kind::kFixed;
    spec.device = text.substr(7);
    TETRAD_CHECK(!spec.device.empty(), InvalidArgument,
                 "invalid --compute '{}': name a device profile (known: {}) or a .json file", text,
                 joinedDeviceNames());
    return spec;
  }
  TETRAD_FAIL(InvalidArgument, "invalid --compute '{}': use {}", text, computeModelForms());
}

std::string computeModelForms() {
  return "measured, measured*FACTOR, fixed:DURATION (e.g. fixed:50ms), flops:GFLOPS, "
         "throughput:SAMPLES_PER_S or device:NAME|FILE";
}

std::string computeModelHelp() {
  return fmt::format("{} (devices: {})", computeModelForms(), joinedDeviceNames());
}

ComputeSpec scaleComputeTime(ComputeSpec spec, double factor) {
  TETRAD_CHECK(factor > 0 && std::isfinite(factor), InvalidArgument,
               "compute scale must be a finite number > 0, got {}", factor);
  const bool rated = spec.device.empty() && spec.kind != ComputeSpec::Kind::kMeasured;
  TETRAD_CHECK(rated, InvalidArgument,
               "the compute axis scales fixed:, flops: and throughput: compute models; this run "
               "has --compute {}",
               spec.toString());
  if (spec.kind == ComputeSpec::Kind::kFlops) {
    spec.gflops /= factor;
  } else if (spec.samplesPerSecond > 0) {
    spec.samplesPerSecond /= factor;
  } else {
    spec.seconds *= factor;
  }
  return spec;
}

std::vector<std::string> deviceNames() {
  std::vector<std::string> names;
  const std::string dir = shippedConfigDir();
  if (dir.empty()) return names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(fs::path(dir) / "devices", ec)) {
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string joinedDeviceNames() {
  const std::vector<std::string> names = deviceNames();
  return names.empty() ? std::string("none found: set TETRAD_CONFIGS")
                       : fmt::format("{}", fmt::join(names, ", "));
}

}  // namespace tetrad::model
