// Encode/decode seconds (codec_cost.h): measured median rounds of the actual
// compressor, or bytes / nominal throughput (+ decode + a memory pass for ,ef).
#include "tetrad/model/codec_cost.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <vector>

#include "tetrad/compress/spec.h"
#include "tetrad/core/error.h"
#include "tetrad/model/exchange_cost.h"

namespace tetrad::model {
namespace {

// GB/s of float32 input, encode and decode: `tetrad bench compressors`,
// 16M elements (docs/BENCHMARKS.md).
struct Throughput {
  double encode, decode;
};
const std::map<std::string, Throughput>& nominalThroughputs() {
  static const std::map<std::string, Throughput> table = {
      {"fp16", {12.43, 22.40}},    {"bf16", {9.52, 16.14}},     {"onebit", {10.41, 25.38}},
      {"sign", {23.45, 24.97}},    {"efsign", {10.83, 26.19}},  {"terngrad", {9.51, 11.88}},
      {"qsgd", {8.55, 10.32}},     {"natural", {11.20, 10.95}}, {"topk", {11.84, 94.13}},
      {"randomk", {27.72, 94.95}}, {"threshold", {2.23, 4.27}}, {"dgc", {6.02, 1366.97}},
      {"gtopk", {6.17, 122.37}},   {"powersgd", {3.99, 12.99}},
  };
  return table;
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

CodecCost profileCodec(const CodecProfile& profile, const Compressor& compressor,
                       const Workload& workload) {
  if (compressor.isIdentity()) return {0, 0, false, "none"};
  CodecCost cost;
  cost.source = "profile " + profile.name;
  for (const BucketRange& b : exchangeBuckets(workload, workload.bucketBytes)) {
    cost.encodeSeconds += profile.seconds(compressor, CodecWork::kEncode, b.count);
    cost.decodeSeconds += profile.seconds(compressor, CodecWork::kDecode, b.count);
  }
  return cost;
}

CodecCost measureCodec(const Compressor& compressor, const Workload& workload, int repetitions) {
  TETRAD_CHECK(repetitions >= 1, InvalidArgument, "repetitions must be >= 1, got {}", repetitions);
  if (compressor.isIdentity()) return {0, 0, false, "none"};
  std::vector<TensorShape> tensors = workload.tensors;
  double scale = 1;
  if (workload.parameters > kMeasureElements) {
    tensors = parameterWorkload(kMeasureElements).tensors;
    scale = double(workload.parameters) / double(kMeasureElements);
  }
  // The fused buckets train encodes (exchange_cost.h), each with its layout.
  Workload measured = workload;
  measured.tensors = tensors;
  const std::vector<BucketRange> buckets = exchangeBuckets(measured, measured.bucketBytes);
  std::vector<std::vector<float>> inputs, outputs;
  std::vector<CompressorState> states(buckets.size());
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t t = 0; t < buckets.size(); ++t) {
    std::vector<float> input(buckets[t].count);
    for (float& v : input) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      v = float(int64_t(x >> 40) - (int64_t(1) << 23)) * 1e-7f;  // ~U(-0.84, 0.84)
    }
    inputs.push_back(std::move(input));
    outputs.emplace_back(buckets[t].count, 0.0f);
    states[t].shape = buckets[t].shape;
    if (buckets[t].tensorShapes.size() > 1) states[t].layout = buckets[t].tensorShapes;
    states[t].seed = 1;
  }
  std::vector<Packet> packets(buckets.size());
  auto encodeAll = [&] {
    for (size_t t = 0; t < buckets.size(); ++t)
      packets[t] = compressor.encode(inputs[t], states[t]);
  };
  auto decodeAll = [&] {
    for (size_t t = 0; t < buckets.size(); ++t) compressor.decodeAdd(packets[t].bytes, outputs[t]);
  };
  encodeAll();  // warm-up: residuals, momentum, scratch
  decodeAll();
  std::vector<double> encodes, decodes;
  for (int r = 0; r < repetitions; ++r) {
    auto start = std::chrono::steady_clock::now();
    encodeAll();
    auto middle = std::chrono::steady_clock::now();
    decodeAll();
    auto end = std::chrono::steady_clock::now();
    encodes.push_back(seconds(middle - start));
    decodes.push_back(seconds(end - middle));
  }
  return {median(encodes) * scale, median(decodes) * scale, true, "measured"};
}

CodecCost nominalCodec(const Compressor& compressor, const Workload& workload) {
  if (compressor.isIdentity()) return {0, 0, false, "none"};
  const CompressorParams params = parseCompressorSpec(compressor.spec());
  const auto& table = nominalThroughputs();
  auto it = table.find(params.name);
  TETRAD_CHECK(it != table.end(), Unsupported,
               "compressor '{}': no nominal encode/decode throughput; measure it (omit "
               "--no-measure)",
               compressor.spec());
  const double bytes = 4.0 * double(workload.parameters);
  double encode = bytes / (it->second.encode * 1e9);
  const double decode = bytes / (it->second.decode * 1e9);
  if (params.errorFeedback) encode += decode + bytes / kMemoryPassBytesPerSecond;
  return {encode, decode, false, "nominal"};
}

}  // namespace tetrad::model
