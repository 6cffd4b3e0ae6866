// Registry: spec grammar, canonical specs, and one-line errors for bad specs.
#include "tetrad/compress/registry.h"

#include <gtest/gtest.h>

#include <set>

#include "quant_test_util.h"

namespace tetrad {
namespace {

std::string errorOf(const std::string& spec) {
  try {
    makeCompressor(spec);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "";
}

TEST(Registry, ParsesTheGrammar) {
  CompressorParams p = parseCompressorSpec("qsgd:16:elias,ef");
  EXPECT_EQ(p.name, "qsgd");
  EXPECT_EQ(p.params, (std::vector<std::string>{"16", "elias"}));
  EXPECT_TRUE(p.errorFeedback);
  EXPECT_EQ(p.spec, "qsgd:16:elias,ef");
  CompressorParams q = parseCompressorSpec("none");
  EXPECT_TRUE(q.params.empty());
  EXPECT_FALSE(q.errorFeedback);
}

TEST(Registry, CanonicalSpecsRoundTrip) {
  for (const std::string& spec : testing::allSpecs()) {
    CompressorPtr c = makeCompressor(spec);
    ASSERT_NE(c, nullptr) << spec;
    EXPECT_EQ(makeCompressor(c->spec())->spec(), c->spec()) << spec;
  }
  for (const std::string& spec : testing::quantSpecs()) {
    EXPECT_EQ(makeCompressor(spec)->spec(), spec);
    if (spec != "onebit" && spec != "onebit:col" && spec != "efsign") {
      EXPECT_EQ(makeCompressor(spec + ",ef")->spec(), spec + ",ef");
    }
  }
}

TEST(Registry, ListsEveryCompressorOnce) {
  std::set<std::string> names;
  for (const CompressorInfo& info : registeredCompressors()) {
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_FALSE(info.summary.empty()) << info.name;
    EXPECT_EQ(parseCompressorSpec(info.example).name, info.name);
    EXPECT_NO_THROW(makeCompressor(info.example)) << info.example;
  }
  for (const char* name :
       {"none", "fp16", "bf16", "onebit", "sign", "efsign", "terngrad", "qsgd", "natural"}) {
    EXPECT_TRUE(names.count(name)) << name;
  }
}

// What code outside compress/ asks instead of a name (compressor.h): every
// registered custom protocol declares a shape the cost model prices, and the
// wrapper ",ef" passes its inner compressor's traits on.
TEST(Registry, CompressorsDeclareWhatOtherLayersAsk) {
  using Shape = Compressor::ProtocolShape;
  for (const CompressorInfo& info : registeredCompressors()) {
    const CompressorPtr c = makeCompressor(info.example);
    if (c->aggregation() == Aggregation::kCustom) {
      EXPECT_NE(c->protocolShape(), Shape::kUnmodelled) << info.example;
    }
  }
  EXPECT_EQ(makeCompressor("sign")->protocolShape(), Shape::kPacketRing);
  EXPECT_EQ(makeCompressor("gtopk:0.01")->protocolShape(), Shape::kMergeTree);
  EXPECT_EQ(makeCompressor("sign,ef")->protocolShape(), Shape::kPacketRing);
  EXPECT_EQ(makeCompressor("powersgd:2")->protocolShape(), Shape::kAllreduceRounds);
  CompressorState matrix;
  matrix.shape = {64, 32};
  // P (64 rows x rank 2), then Q (32 columns x rank 2).
  EXPECT_EQ(makeCompressor("powersgd:2")->allreduceRoundFloats(matrix, 2048),
            (std::vector<size_t>{128, 64}));
  EXPECT_TRUE(makeCompressor("threshold:0.001")->packetSizeDependsOnData());
  EXPECT_TRUE(makeCompressor("qsgd:16:elias,ef")->packetSizeDependsOnData());
  EXPECT_FALSE(makeCompressor("qsgd:16")->packetSizeDependsOnData());
  EXPECT_FALSE(makeCompressor("topk:0.01")->packetSizeDependsOnData());
  EXPECT_DOUBLE_EQ(makeCompressor("dgc:0.01")->ownMomentum(), 0.9);
  EXPECT_DOUBLE_EQ(makeCompressor("sign:momentum=0.5,ef")->ownMomentum(), 0.5);
  EXPECT_DOUBLE_EQ(makeCompressor("sign")->ownMomentum(), 0.0);
  EXPECT_DOUBLE_EQ(makeCompressor("topk:0.01,ef")->ownMomentum(), 0.0);
  EXPECT_NE(makeCompressor("sign")->theoryNote().find("ℓ1"), std::string::npos);
  EXPECT_NE(makeCompressor("gtopk:0.01")->theoryNote().find("local selection"), std::string::npos);
  EXPECT_EQ(makeCompressor("topk:0.01,ef")->theoryNote(), "");
  // PowerSGD's codec work grows with its rank; nobody else's with a parameter.
  for (const CompressorInfo& info : registeredCompressors()) {
    EXPECT_EQ(makeCompressor(info.example)->codecWorkScalesWithFirstParameter(),
              info.name == "powersgd")
        << info.example;
  }
}

TEST(Registry, BadSpecsAreOneLineInvalidArguments) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", "empty compressor name"},
      {"nope", "unknown name 'nope'"},
      {"none:", "empty parameter"},
      {":3", "empty compressor name"},
      {"none,xx", "the only suffix is ',ef'"},
      {"fp16:3", "takes 0 parameter"},
      {"qsgd", "takes 1 to 3 parameters"},
      {"qsgd:0", "levels must be an integer in [1, 32767], got '0'"},
      {"qsgd:40000", "levels must be an integer in [1, 32767]"},
      {"qsgd:abc", "levels must be an integer"},
      {"qsgd:1.5", "levels must be an integer"},
      {"qsgd:16:foo", "unknown parameter 'foo' for 'qsgd'"},
      {"onebit:row", "unknown parameter 'row'"},
      {"onebit,ef", "'onebit' has error feedback built in; drop ',ef'"},
      {"efsign,ef", "'efsign' has error feedback built in"},
      {"terngrad:clip=-1", "clip must be a number in [0, inf), got '-1'"},
      {"terngrad:clip=x", "clip must be a number in [0, inf)"},
      {"qsgd:16:bucket=0", "bucket (elements per norm) must be an integer in [1, 4294967295]"},
      {"sign:momentum=1.5", "momentum must be a number in (0, 1), got '1.5'"},
      {"terngrad:foo", "unknown parameter 'foo'"},
      {"topk:0", "ratio must be in (0, 1]"},
  };
  for (const auto& [spec, expected] : cases) {
    std::string message = errorOf(spec);
    EXPECT_NE(message.find("invalid compressor '" + spec + "'"), std::string::npos)
        << spec << " -> " << message;
    EXPECT_NE(message.find(expected), std::string::npos) << spec << " -> " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << spec;
  }
  EXPECT_EQ(errorOf("topk:0"), "invalid compressor 'topk:0': ratio must be in (0, 1], got '0'");
}

}  // namespace
}  // namespace tetrad
