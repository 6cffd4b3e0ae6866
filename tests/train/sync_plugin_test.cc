// A sync policy defined here, in the test binary, and registered with
// registerSyncPolicy() (sync/registry.h): the worker loop asks a policy what
// it is, never its name, so a new policy trains end to end without a change
// under src/tetrad/train/. The toy policy "every:K" averages the model
// change every K local steps; it must train to exactly the parameters of
// the built-in local:K.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "tetrad/core/error.h"
#include "tetrad/sync/registry.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

class EveryK final : public SyncPolicy {
 public:
  explicit EveryK(int64_t period) : period_(period) {}
  std::string spec() const override { return fmt::format("every:{}", period_); }
  SyncPoint at(int64_t iteration) const override { return {false, (iteration + 1) % period_ == 0}; }
  bool averagesModels() const override { return true; }

 private:
  int64_t period_;
};

const bool kRegistered =
    registerSyncPolicy({"every", "every:4", "test policy: average the model change every K steps"},
                       [](const SpecParams& params, const SyncContext&) -> SyncPolicyPtr {
                         params.expectParamCount(1, 1);
                         return std::make_unique<EveryK>(params.integer(0, "period K"));
                       });

TEST(SyncPlugin, RegisteredPolicyTrainsLikeTheBuiltInLocalSgd) {
  ASSERT_TRUE(kRegistered);
  const DataSplits data = testing::smallSynthetic(512, 64);
  TrainConfig config = testing::equivalenceConfig("mlp", 16, 12);
  config.cluster = "sim:10Gbps,25us";
  config.sync = "every:3";
  const std::vector<float> plugin = testing::finalParameters(config, data, 3);
  config.sync = "local:3";
  const std::vector<float> builtIn = testing::finalParameters(config, data, 3);
  ASSERT_FALSE(plugin.empty());
  ASSERT_EQ(plugin.size(), builtIn.size());
  EXPECT_EQ(plugin, builtIn) << "every:3 and local:3 differ";
  // And not trivially: BSP ends elsewhere.
  config.sync = "bsp";
  EXPECT_NE(testing::finalParameters(config, data, 3), plugin);
}

TEST(SyncPlugin, RegisteredPolicyIsListedAndItsBadSpecsRefused) {
  ASSERT_TRUE(kRegistered);
  EXPECT_NE(knownSyncPolicies().find("every:4"), std::string::npos);
  EXPECT_THROW(makeSyncPolicy("every"), InvalidArgument);
  EXPECT_THROW(makeSyncPolicy("every:0"), InvalidArgument);
  // A second policy under a taken name is refused.
  EXPECT_THROW(registerSyncPolicy(
                   {"bsp", "bsp", "again"},
                   [](const SpecParams&, const SyncContext&) -> SyncPolicyPtr { return nullptr; }),
               InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
