#include "tetrad/train/compute/compute_model.h"

#include <cmath>
#include <sstream>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/train/compute/device_profile.h"
#include "tetrad/train/seeding.h"

namespace tetrad::train {
namespace {
constexpr uint64_t kNoiseStream = 0x4000;
}  // namespace

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
  TETRAD_FAIL(InvalidArgument,
              "invalid --compute '{}': use measured, measured*FACTOR, fixed:DURATION (e.g. "
              "fixed:50ms), flops:GFLOPS, throughput:SAMPLES_PER_S or device:NAME|FILE",
              text);
}

ComputeSpec resolveComputeModel(ComputeSpec spec, const std::string& model, int batch) {
  if (!spec.device.empty()) {
    const DeviceProfile profile = loadDeviceProfile(spec.device);
    const DeviceThroughput* published = profile.throughputFor(model);
    if (published != nullptr) {
      spec.samplesPerSecond = published->samplesPerSecond;
    } else {
      spec.kind = ComputeSpec::Kind::kFlops;
      spec.gflops = profile.effectiveGflops;
    }
  }
  if (spec.kind == ComputeSpec::Kind::kFixed && spec.samplesPerSecond > 0) {
    TETRAD_CHECK(batch >= 1, InvalidArgument, "--compute {}: the batch must be >= 1, got {}",
                 spec.toString(), batch);
    spec.seconds = double(batch) / spec.samplesPerSecond;
  }
  return spec;
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

Straggler parseStraggler(const std::string& text) {
  size_t colon = text.find(':');
  TETRAD_CHECK(colon != std::string::npos, InvalidArgument,
               "invalid --straggler '{}': use RANK:FACTOR (e.g. 3:2.0)", text);
  Straggler s;
  s.rank = static_cast<int>(parseInteger(text.substr(0, colon), "straggler rank"));
  s.factor = parseNumber(text.substr(colon + 1), "straggler factor");
  TETRAD_CHECK(s.rank >= 0 && s.factor > 0, InvalidArgument,
               "invalid --straggler '{}': the rank must be >= 0 and the factor > 0", text);
  return s;
}

ComputeTimer::ComputeTimer(const ComputeSpec& spec, double slowdown, double noiseSigma,
                           uint64_t seed, int rank)
    : spec_(spec),
      slowdown_(slowdown),
      noiseSigma_(noiseSigma),
      rng_(mixSeed(mixSeed(seed, kNoiseStream), uint64_t(rank))) {}

double ComputeTimer::charge(double measured, double flops, bool chargesFixed) {
  double seconds = 0;
  switch (spec_.kind) {
    case ComputeSpec::Kind::kMeasured:
      seconds = measured * spec_.scale;
      break;
    case ComputeSpec::Kind::kFixed:
      seconds = chargesFixed ? spec_.seconds : 0;
      break;
    case ComputeSpec::Kind::kFlops:
      seconds = flops / (spec_.gflops * 1e9);
      break;
  }
  seconds *= slowdown_;
  if (noiseSigma_ > 0 && seconds > 0) {
    seconds *= std::exp(noiseSigma_ * normal_(rng_) - 0.5 * noiseSigma_ * noiseSigma_);
  }
  return seconds;
}

std::string ComputeTimer::saveState() const {
  std::ostringstream out;
  out << rng_ << ' ' << normal_;
  return out.str();
}

void ComputeTimer::loadState(const std::string& state) {
  std::istringstream in(state);
  in >> rng_ >> normal_;
  TETRAD_CHECK(!in.fail(), InvalidArgument, "checkpoint: unreadable compute-noise state");
}

}  // namespace tetrad::train
