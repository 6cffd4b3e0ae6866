// Cost per worker step with K server shards (arch/ps): one push and one pull
// of n floats, each split over K shards; no barrier, except that under ssp:S
// a worker S+1 clocks ahead of the slowest waits for it.
#include "tetrad/sync/stale_sync.h"

#include <fmt/format.h>

namespace tetrad {
namespace {

class StaleSync final : public SyncPolicy {
 public:
  explicit StaleSync(int64_t bound) : bound_(bound) {}
  std::string spec() const override {
    return bound_ < 0 ? std::string("asp") : fmt::format("ssp:{}", bound_);
  }
  // Never a collective exchange: every worker pushes and pulls on its own.
  SyncPoint at(int64_t) const override { return {false, false}; }
  SyncMode mode() const override { return SyncMode::kPushPull; }
  int64_t stalenessBound() const override { return bound_; }

 private:
  int64_t bound_;
};

}  // namespace

SyncPolicyPtr makeSsp(const SpecParams& params, const SyncContext&) {
  params.expectParamCount(1, 1);
  return std::make_unique<StaleSync>(params.integer(0, "staleness bound S", 0));
}

SyncPolicyPtr makeAsp(const SpecParams& params, const SyncContext&) {
  params.expectParamCount(0, 0);
  return std::make_unique<StaleSync>(kUnboundedStaleness);
}

}  // namespace tetrad
