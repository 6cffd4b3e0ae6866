#include "tetrad/train/loop/lr_schedule.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::train {

std::string LrScheduleSpec::toString() const {
  switch (kind) {
    case Kind::kConstant:
      return "constant";
    case Kind::kCosine:
      return "cosine";
    case Kind::kStep: {
      std::string text = "step:";
      for (size_t i = 0; i < milestones.size(); ++i) {
        text += fmt::format("{}{}", i ? "," : "", milestones[i]);
      }
      return text + fmt::format(":{}", gamma);
    }
  }
  return "?";
}

LrScheduleSpec parseLrSchedule(const std::string& text) {
  LrScheduleSpec spec;
  if (text == "constant") return spec;
  if (text == "cosine") {
    spec.kind = LrScheduleSpec::Kind::kCosine;
    return spec;
  }
  if (text.starts_with("step:")) {
    spec.kind = LrScheduleSpec::Kind::kStep;
    std::string rest = text.substr(5);
    size_t colon = rest.find(':');
    if (colon != std::string::npos) {
      spec.gamma = parseNumber(rest.substr(colon + 1), "step decay factor");
      TETRAD_CHECK(spec.gamma > 0 && spec.gamma <= 1, InvalidArgument,
                   "invalid --lr-schedule '{}': the decay factor must be in (0, 1]", text);
      rest = rest.substr(0, colon);
    }
    size_t begin = 0;
    while (begin <= rest.size()) {
      size_t comma = std::min(rest.find(',', begin), rest.size());
      double epoch = parseNumber(rest.substr(begin, comma - begin), "step milestone (epoch)");
      TETRAD_CHECK(epoch > 0 && (spec.milestones.empty() || epoch > spec.milestones.back()),
                   InvalidArgument,
                   "invalid --lr-schedule '{}': milestones must be positive and increasing", text);
      spec.milestones.push_back(epoch);
      begin = comma + 1;
    }
    return spec;
  }
  TETRAD_FAIL(InvalidArgument,
              "invalid --lr-schedule '{}': use constant, cosine or step:E1,E2[:GAMMA]", text);
}

LrSchedule::LrSchedule(const LrScheduleSpec& spec, double peak, double warmupEpochs,
                       int64_t stepsPerEpoch, int64_t totalSteps)
    : spec_(spec),
      peak_(peak),
      warmupSteps_(std::llround(warmupEpochs * double(stepsPerEpoch))),
      stepsPerEpoch_(std::max<int64_t>(stepsPerEpoch, 1)),
      totalSteps_(std::max<int64_t>(totalSteps, 1)) {
  TETRAD_CHECK(peak > 0 && std::isfinite(peak), InvalidArgument,
               "the learning rate must be positive, got {}", peak);
  TETRAD_CHECK(warmupEpochs >= 0, InvalidArgument, "--warmup must not be negative, got {}",
               warmupEpochs);
}

double LrSchedule::at(int64_t step) const {
  if (step < warmupSteps_) return peak_ * double(step + 1) / double(warmupSteps_);
  switch (spec_.kind) {
    case LrScheduleSpec::Kind::kConstant:
      return peak_;
    case LrScheduleSpec::Kind::kStep: {
      double epoch = double(step) / double(stepsPerEpoch_);
      double lr = peak_;
      for (double milestone : spec_.milestones) {
        if (epoch >= milestone) lr *= spec_.gamma;
      }
      return lr;
    }
    case LrScheduleSpec::Kind::kCosine: {
      int64_t span = totalSteps_ - warmupSteps_;
      if (span <= 1) return peak_;
      double progress = std::clamp(double(step - warmupSteps_) / double(span - 1), 0.0, 1.0);
      return peak_ * 0.5 * (1 + std::cos(std::numbers::pi * progress));
    }
  }
  return peak_;
}

}  // namespace tetrad::train
