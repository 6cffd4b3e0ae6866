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
