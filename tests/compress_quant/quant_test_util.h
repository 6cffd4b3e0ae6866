// Helpers shared by the compress_quant tests: deterministic random tensors,
// the list of specs to exercise, encode/decode shorthands and norms.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/registry.h"

namespace tetrad::testing {

inline std::vector<float> gaussian(size_t n, uint64_t seed, float sigma = 1.0f) {
  std::mt19937_64 generator(seed);
  std::normal_distribution<float> normal(0.0f, sigma);
  std::vector<float> values(n);
  for (float& v : values) v = normal(generator);
  return values;
}

// decode(packet) as a fresh tensor of n elements.
inline std::vector<float> decoded(const Compressor& compressor, const Packet& packet, size_t n) {
  std::vector<float> out(n, 0.0f);
  compressor.decodeAdd(packet.bytes, out);
  return out;
}

inline double squaredNorm(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += static_cast<double>(v) * v;
  return sum;
}

inline double squaredDistance(const std::vector<float>& a, const std::vector<float>& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    double d = static_cast<double>(a[i]) - b[i];
    sum += d * d;
  }
  return sum;
}

inline double l1Norm(const std::vector<float>& x) {
  double sum = 0;
  for (float v : x) sum += std::fabs(v);
  return sum;
}

// Specs of the QUANT compressors with every parameter form.
inline std::vector<std::string> quantSpecs() {
  return {"none",
          "fp16",
          "bf16",
          "onebit",
          "onebit:col",
          "sign",
          "sign:momentum=0.9",
          "efsign",
          "terngrad",
          "terngrad:clip=1",
          "terngrad:clip=0",
          "terngrad:scope=bucket",
          "terngrad:scope=bucket:clip=0",
          "qsgd:1",
          "qsgd:16",
          "qsgd:4:elias",
          "qsgd:16:bucket=100",
          "qsgd:4:elias:bucket=7",
          "qsgd:32767",
          "natural"};
}

// Every registered compressor's example, a few parameter variants, and the
// ",ef" form of each compressor that accepts it.
inline std::vector<std::string> allSpecs() {
  std::vector<std::string> specs = quantSpecs();
  for (const CompressorInfo& info : registeredCompressors()) {
    bool known = false;
    for (const std::string& spec : specs) known = known || spec == info.example;
    if (!known) specs.push_back(info.example);
  }
  std::vector<std::string> withEf;
  for (const std::string& spec : specs) {
    try {
      makeCompressor(spec + ",ef");
      withEf.push_back(spec + ",ef");
    } catch (const InvalidArgument&) {
      // built-in error feedback: ",ef" is refused (tested in registry_test)
    }
  }
  specs.insert(specs.end(), withEf.begin(), withEf.end());
  return specs;
}

}  // namespace tetrad::testing
