// Cost per step of K micro-batches on p workers: K forward/backward passes
// (no communication), then BSP's one gradient exchange of n floats (ring
// all-reduce: 2(p-1)α + 2(p-1)/p·4n·β): the communication per iteration is
// 1/K of BSP's, and one addition of n floats per micro-batch.
#include "tetrad/sync/accumulate.h"

#include <fmt/format.h>

namespace tetrad {
namespace {

class Accumulate final : public SyncPolicy {
 public:
  Accumulate(int64_t microBatches, int64_t total) : microBatches_(microBatches), total_(total) {}
  std::string spec() const override { return fmt::format("accum:{}", microBatches_); }
  SyncPoint at(int64_t iteration) const override {
    const bool step = (iteration + 1) % microBatches_ == 0 || iteration + 1 == total_;
    return {step, false, step};
  }
  int64_t averagingPeriod() const override { return microBatches_; }
  int64_t microBatchesPerStep() const override { return microBatches_; }

 private:
  int64_t microBatches_;
  int64_t total_;
};

}  // namespace

SyncPolicyPtr makeAccumulate(const SpecParams& params, const SyncContext& context) {
  params.expectParamCount(1, 1);
  const int64_t microBatches = params.integer(0, "micro-batches per step K");
  return std::make_unique<Accumulate>(microBatches, context.totalIterations);
}

}  // namespace tetrad
