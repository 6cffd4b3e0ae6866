// The run's codec charge (codec_charge.h).
#include "tetrad/train/loop/codec_charge.h"

#include <fmt/format.h>

#include <filesystem>

#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/train/compute/device_profile.h"

namespace tetrad::train {

std::string CodecChargeSpec::describe() const {
  switch (mode) {
    case Mode::kNone:
      return "none";
    case Mode::kMeasured:
      return scale == 1 ? "measured" : fmt::format("measured*{:g}", scale);
    case Mode::kModelled:
      return fmt::format("profile {} ({})", profile->name, profile->path);
  }
  return "?";
}

CodecChargeSpec resolveCodecCharge(const std::string& flag, const ComputeSpec& compute, bool mpi,
                                   bool timingOnly, const std::vector<std::string>& compressSpecs) {
  CodecChargeSpec spec;
  const bool measuredCompute = compute.kind == ComputeSpec::Kind::kMeasured;
  std::string profile;
  if (flag == "none") {
    return spec;
  } else if (flag == "measured" || (flag == "auto" && (mpi || (measuredCompute && !timingOnly)))) {
    TETRAD_CHECK(!timingOnly, InvalidArgument,
                 "--codec-cost measured: a --timing-only run has no values to encode; give "
                 "--codec-cost profile:NAME (host-cpu, v100) or none");
    spec.mode = CodecChargeSpec::Mode::kMeasured;
    spec.scale = measuredCompute ? compute.scale : 1.0;
    return spec;
  } else if (flag == "auto" && !compute.device.empty()) {
    // A device profile names its codec profile (configs/codec/NAME.json).
    const std::string named = loadDeviceProfile(compute.device).codecProfile;
    const std::filesystem::path path(named);
    profile = path.parent_path() == "configs/codec" ? path.stem().string() : named;
  } else if (flag == "auto") {
    profile = model::kDefaultCodecProfile;
  } else if (flag.starts_with("profile:") && flag.size() > 8) {
    profile = flag.substr(8);
  } else {
    TETRAD_FAIL(InvalidArgument,
                "--codec-cost '{}': use auto, measured, none or profile:NAME|FILE (shipped: "
                "host-cpu, v100)",
                flag);
  }
  TETRAD_CHECK(!mpi, InvalidArgument,
               "--codec-cost {}: under MPI the codec's own time is on the wall clock already "
               "(use auto, measured or none)",
               flag);
  spec.mode = CodecChargeSpec::Mode::kModelled;
  spec.profile = std::make_shared<const model::CodecProfile>(model::loadCodecProfile(profile));
  for (const std::string& compress : compressSpecs) {
    spec.profile->checkCovers(*makeCompressor(compress));
  }
  return spec;
}

RankCodecClock::RankCodecClock(Transport& transport, CodecChargeSpec spec)
    : transport_(transport), spec_(std::move(spec)) {}

void RankCodecClock::chargeSeconds(double seconds) {
  if (measures()) seconds *= spec_.scale;
  if (seconds <= 0) return;
  charged_.fetch_add(seconds);
  const bool simulated = transport_.simulatedClock();
  const double start = simulated ? transport_.now() : transport_.now() - seconds;
  transport_.compute(seconds);  // a no-op under MPI, where it took real time
  if (meter_ != nullptr) meter_->addCodec(seconds);
  if (timeline_ != nullptr && timeline_->enabled()) {
    timeline_->add(TimelineTrack::kCommunication, "codec", "codec", start, start + seconds,
                   iteration_);
  }
}

void RankCodecClock::chargeModelled(const Compressor& compressor, CodecWork kind, size_t elements,
                                    double calls) {
  if (spec_.mode != CodecChargeSpec::Mode::kModelled) return;
  chargeSeconds(spec_.profile->seconds(compressor, kind, elements) * calls);
}

}  // namespace tetrad::train
