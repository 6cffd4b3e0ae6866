// Cost per period of H iterations on p workers: H local steps (no
// communication), then one exchange of the model change Δ (n floats; ring
// all-reduce: 2(p-1)α + 2(p-1)/p·b·β for b wire bytes of the compressed Δ):
// the communication per iteration is 1/H of BSP's.
#include "tetrad/sync/local_sgd.h"

#include <fmt/format.h>

#include <charconv>

namespace tetrad {
namespace {

class LocalSgd final : public SyncPolicy {
 public:
  // BSP before `switchAt`, then averages after every `period`-th local step.
  LocalSgd(std::string spec, int64_t switchAt, int64_t period)
      : spec_(std::move(spec)), switchAt_(switchAt), period_(period) {}
  std::string spec() const override { return spec_; }
  SyncPoint at(int64_t iteration) const override {
    if (iteration < switchAt_) return {true, false};
    return {false, (iteration - switchAt_ + 1) % period_ == 0};
  }
  bool averagesModels() const override { return true; }
  int64_t averagingPeriod() const override { return period_; }

 private:
  std::string spec_;
  int64_t switchAt_;
  int64_t period_;
};

}  // namespace

SyncPolicyPtr makeLocalSgd(const SpecParams& params, const SyncContext&) {
  params.expectParamCount(1, 1);
  const int64_t period = params.integer(0, "period H");
  return std::make_unique<LocalSgd>(fmt::format("local:{}", period), 0, period);
}

SyncPolicyPtr makePostLocalSgd(const SpecParams& params, const SyncContext& context) {
  params.expectParamCount(2, 2);
  std::string switchText = params.params[0];
  int64_t switchAt = 0;
  if (switchText.ends_with("ep")) {
    std::string_view number(switchText.data(), switchText.size() - 2);
    int64_t epochs = -1;
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), epochs);
    if (ec != std::errc() || end != number.data() + number.size() || epochs < 0) {
      params.fail(
          fmt::format("switch point must be ITERATIONS or EPOCHSep (e.g. 200 or 2ep), "
                      "got '{}'",
                      switchText));
    }
    switchAt = context.iterationsForEpochs ? context.iterationsForEpochs(epochs)
                                           : epochs * context.stepsPerEpoch;
  } else {
    switchAt = params.integer(0, "switch point T (iterations, or Tep for epochs)", 0);
  }
  const int64_t period = params.integer(1, "period H");
  return std::make_unique<LocalSgd>(fmt::format("post-local:{}:{}", switchText, period), switchAt,
                                    period);
}

}  // namespace tetrad
