// throughput:S and device profiles (train/compute/compute_model.h,
// device_profile.h) without running anything.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/compute/device_profile.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

std::string writeProfile(const std::string& name, const std::string& body) {
  const fs::path path = fs::temp_directory_path() / ("tetrad_device_" + name + ".json");
  std::ofstream(path) << body;
  return path.string();
}

const char* kProfile = R"({
  "name": "toy", "description": "a toy device", "source": "this test",
  "effective_gflops": 1000, "effective_source": "this test",
  "node_link": {"bandwidth": "100GBps", "latency": "2us", "source": "this test"},
  "codec_profile": "configs/codec/host-cpu.json",
  "throughputs": [{"model": "resnet50", "batch": 64, "samples_per_second": 400,
                   "source": "this test"}]
})";

TEST(ThroughputCompute, AnIterationIsBatchOverThroughput) {
  const ComputeSpec spec = resolveComputeModel(parseComputeSpec("throughput:400"), "resnet50", 64);
  EXPECT_EQ(spec.kind, ComputeSpec::Kind::kFixed);
  EXPECT_DOUBLE_EQ(spec.seconds, 64.0 / 400.0);
  EXPECT_EQ(spec.toString(), "throughput:400");
  EXPECT_EQ(parseComputeSpec(spec.toString()).samplesPerSecond, 400);
}

TEST(ThroughputCompute, NonPositiveThroughputsAreRefused) {
  EXPECT_THROW(parseComputeSpec("throughput:0"), InvalidArgument);
  EXPECT_THROW(parseComputeSpec("throughput:-5"), InvalidArgument);
  EXPECT_THROW(parseComputeSpec("throughput:fast"), InvalidArgument);
}

TEST(DeviceProfile, PublishedThroughputElseEffectiveRate) {
  const std::string file = writeProfile("toy", kProfile);
  const ComputeSpec published =
      resolveComputeModel(parseComputeSpec("device:" + file), "resnet50", 32);
  EXPECT_EQ(published.kind, ComputeSpec::Kind::kFixed);
  EXPECT_DOUBLE_EQ(published.seconds, 32.0 / 400.0);
  const ComputeSpec flops = resolveComputeModel(parseComputeSpec("device:" + file), "vgg16", 32);
  EXPECT_EQ(flops.kind, ComputeSpec::Kind::kFlops);
  EXPECT_DOUBLE_EQ(flops.gflops, 1000);
  EXPECT_EQ(flops.toString(), "device:" + file);
  EXPECT_EQ(loadDeviceProfile(file).codecProfile, "configs/codec/host-cpu.json");
}

TEST(DeviceProfile, NodeLinkIsTheFirstLevel) {
  const std::string file = writeProfile("toy", kProfile);
  EXPECT_EQ(clusterWithNodeLink("sim:4x8:device:10Gbps,25us", "device:" + file),
            "sim:4x8:100GBps,2us:10Gbps,25us");
  EXPECT_EQ(clusterWithNodeLink("sim:8x10Gbps,25us", "device:" + file), "sim:8x10Gbps,25us");
  EXPECT_THROW(clusterWithNodeLink("sim:4x8:device:10Gbps,25us", "fixed:1s"), InvalidArgument);
}

TEST(DeviceProfile, MissingKeysAndSourcesAreNamed) {
  auto replaced = [](std::string text, const std::string& from, const std::string& to) {
    return text.replace(text.find(from), from.size(), to);
  };
  const std::string last = R"("source": "this test"}])";
  for (const auto& [body, key] : std::vector<std::pair<std::string, std::string>>{
           {replaced(kProfile, "\"codec_profile\"", "\"codec\""), "codec_profile"},
           {replaced(kProfile, last, R"("source": ""}])"), "throughputs[0].source"}}) {
    try {
      loadDeviceProfile(writeProfile("bad", body));
      FAIL() << "no error for " << key;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find("'" + key + "'"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(loadDeviceProfile("no-such-device"), InvalidArgument);
}

}  // namespace
}  // namespace tetrad::train
