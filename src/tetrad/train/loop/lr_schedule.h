// Learning-rate schedule: optional linear scaling, linear warm-up, then
// constant, step or cosine decay.
//
//   peak      = --lr, times the number of workers with --lr-scaling linear
//               (Goyal et al.: the global batch grows with the workers)
//   warm-up   over the first --warmup epochs: lr = peak * (t + 1) / W
//   constant  lr = peak
//   step:E1,E2[:G]  lr = peak * G^(number of milestones Ei <= current epoch),
//               G = 0.1 unless given
//   cosine    lr = peak * (1 + cos(pi * progress)) / 2 over the steps after
//               warm-up, reaching 0 at the last step
//
// Thread-safety: immutable after construction.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tetrad::train {

struct LrScheduleSpec {
  enum class Kind { kConstant, kStep, kCosine } kind = Kind::kConstant;
  std::vector<double> milestones;  // epochs, step only
  double gamma = 0.1;              // step only
  std::string toString() const;
};

// "constant", "step:E1[,E2...][:GAMMA]", "cosine". Throws InvalidArgument.
LrScheduleSpec parseLrSchedule(const std::string& text);

class LrSchedule {
 public:
  LrSchedule(const LrScheduleSpec& spec, double peak, double warmupEpochs, int64_t stepsPerEpoch,
             int64_t totalSteps);
  // Learning rate of step `step` (0-based).
  double at(int64_t step) const;

 private:
  LrScheduleSpec spec_;
  double peak_;
  int64_t warmupSteps_;
  int64_t stepsPerEpoch_;
  int64_t totalSteps_;
};

}  // namespace tetrad::train
