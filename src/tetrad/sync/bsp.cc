// Cost per iteration: one gradient exchange of the architecture (ring
// all-reduce of n floats on p workers: 2(p-1)α + 2(p-1)/p·4n·β).
#include "tetrad/sync/bsp.h"

namespace tetrad {
namespace {

class Bsp final : public SyncPolicy {
 public:
  std::string spec() const override { return "bsp"; }
  SyncPoint at(int64_t) const override { return {true, false}; }
};

}  // namespace

SyncPolicyPtr makeBsp(const SpecParams& params, const SyncContext&) {
  params.expectParamCount(0, 0);
  return std::make_unique<Bsp>();
}

}  // namespace tetrad
