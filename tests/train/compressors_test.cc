// Every registered compressor (and error feedback on top of one) runs inside
// the trainer: a few BSP iterations on 3 simulated ranks with fused buckets
// (the default; PowerSGD keeps a matrix per tensor) end with a finite test
// loss, the parameters moved, and each compressor's traffic differs from the
// dense exchange. The layer-wise ablation (--bucket-size 0) runs too, with
// the messages it adds.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "tetrad/compress/registry.h"
#include "tetrad/train/trainer.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

TrainSummary shortRun(const std::string& compress, const std::string& folder,
                      const std::string& bucketSize = "auto",
                      const std::string& compute = "measured") {
  TrainConfig c;
  c.bucketSize = bucketSize;
  c.compute = compute;
  c.model = "cnn";
  c.data = "synthetic";
  c.trainSamples = 384;
  c.testSamples = 96;
  c.workers = 3;
  c.batchSize = 8;
  c.maxIters = 4;
  c.compress = compress;
  // DGC carries the momentum itself (train_config refuses SGD momentum on top).
  if (compress.starts_with("dgc")) c.momentum = 0;
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
    // --compute measured charges each rank's measured codec work
    // (train/loop/codec_charge.h): positive for every compressor but none.
    ASSERT_EQ(s.codecTime.size(), 3u);
    for (double codec : s.codecTime) {
      if (spec == "none") {
        EXPECT_EQ(codec, 0.0);
      } else {
        EXPECT_GT(codec, 0.0);
      }
    }
  }
  std::filesystem::remove_all(folder);
}

// Layer-wise buckets (one per tensor) against the fused default, with a
// fixed compute time so that simulated time is communication alone: the
// same compressors pay one exchange per tensor (8 for the cnn) instead of
// one per bucket, so each iteration takes longer on the simulated network;
// PowerSGD's bucket is two all-reduces whatever its tensors.
TEST(TrainerCompressors, LayerWiseBucketsAreTheAblation) {
  std::string folder = testing::makeTempDir("compressors_layerwise");
  for (const std::string spec : {"fp16", "topk:0.01,ef", "powersgd:2", "powersgd:2:batched"}) {
    SCOPED_TRACE(spec);
    const TrainSummary fused = shortRun(spec, folder, "auto", "fixed:1ms");
    const TrainSummary layerWise = shortRun(spec, folder, "0", "fixed:1ms");
    EXPECT_TRUE(std::isfinite(fused.finalLoss));
    EXPECT_TRUE(std::isfinite(layerWise.finalLoss));
    EXPECT_LT(fused.trainTime, layerWise.trainTime);
  }
  EXPECT_THROW(shortRun("onebit:col", folder), Unsupported);  // columns of one tensor
  EXPECT_TRUE(std::isfinite(shortRun("onebit:col", folder, "0").finalLoss));
  std::filesystem::remove_all(folder);
}

}  // namespace
}  // namespace tetrad::train
