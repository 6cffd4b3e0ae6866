// Every registered compressor (and error feedback on top of one) runs inside
// the trainer: a few BSP iterations on 3 simulated ranks with per-tensor
// buckets (PowerSGD sees matrix shapes) end with a finite test loss, the
// parameters moved, and each compressor's traffic differs from the dense
// exchange.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tetrad/compress/registry.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

TrainSummary shortRun(const std::string& compress, const std::string& folder) {
  TrainConfig c;
  c.model = "cnn";
  c.data = "synthetic";
  c.trainSamples = 384;
  c.testSamples = 96;
  c.workers = 3;
  c.batchSize = 8;
  c.maxIters = 4;
  c.compress = compress;
  c.quiet = true;
  c.out = folder;
  return runTraining(c);
}

TEST(TrainerCompressors, EveryRegisteredCompressorTrains) {
  std::string folder = testing::makeTempDir("compressors");
  TrainSummary dense = shortRun("none", folder);
  ASSERT_TRUE(std::isfinite(dense.finalLoss));
  std::vector<std::string> specs;
  for (const CompressorInfo& info : registeredCompressors()) specs.push_back(info.example);
  specs.push_back("topk:0.01,ef");
  for (const std::string& spec : specs) {
    SCOPED_TRACE(spec);
    TrainSummary s = shortRun(spec, folder);
    EXPECT_EQ(s.iterations, 4);
    EXPECT_TRUE(std::isfinite(s.finalLoss)) << s.finalLoss;
    EXPECT_GT(s.finalAccuracy, 0.0);
    ASSERT_EQ(s.bytesSent.size(), 3u);
    EXPECT_GT(s.bytesSent[0], 0u);
    if (spec != "none") {
      EXPECT_NE(s.bytesSent[0], dense.bytesSent[0]);
    }
  }
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tetrad::train
