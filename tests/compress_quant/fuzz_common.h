// Shared by fuzz_test.cc (deterministic, GoogleTest) and decode_fuzz.cc
// (libFuzzer target or corpus replay driver): decoding hostile packets with
// every registered compressor.
//
// decodeGuarded() decodes into a tensor surrounded by guard values and
// aborts if a guard changed (an out-of-bounds write); a ProtocolError means
// "rejected" (returns false); any other exception propagates to the caller,
// which reports it as a failure.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tetrad/compress/compressor.h"
#include "tetrad/compress/registry.h"

namespace tetrad::testing {

constexpr size_t kGuard = 64;
constexpr float kGuardValue = 12345.678f;

inline bool decodeGuarded(const Compressor& compressor, ConstBytes packet, size_t count) {
  std::vector<float> buffer(count + 2 * kGuard, kGuardValue);
  std::span<float> output(buffer.data() + kGuard, count);
  bool accepted = true;
  try {
    compressor.decodeAdd(packet, output);
  } catch (const ProtocolError&) {
    accepted = false;
  }
  for (size_t i = 0; i < kGuard; ++i) {
    if (buffer[i] != kGuardValue || buffer[kGuard + count + i] != kGuardValue) {
      std::fprintf(stderr, "out-of-bounds write decoding '%s' (%zu elements, %zu bytes)\n",
                   compressor.spec().c_str(), count, packet.size());
      std::abort();
    }
  }
  return accepted;
}

// The specs the fuzzers exercise: every registered example plus parameter
// variants and ",ef" forms.
inline std::vector<std::string> fuzzSpecs() {
  std::vector<std::string> specs = {"onebit:col",         "qsgd:1",
                                    "qsgd:4:elias",       "qsgd:32767",
                                    "qsgd:16:bucket=100", "qsgd:4:elias:bucket=7",
                                    "terngrad:clip=0",    "terngrad:scope=bucket",
                                    "topk:0.1:exact",     "randomk:0.1:scaled"};
  for (const CompressorInfo& info : registeredCompressors()) specs.push_back(info.example);
  for (const CompressorInfo& info : registeredCompressors()) {
    try {
      makeCompressor(info.example + ",ef");
      specs.push_back(info.example + ",ef");
    } catch (const InvalidArgument&) {
    }
  }
  std::vector<std::string> valid;
  for (const std::string& spec : specs) {
    try {
      makeCompressor(spec);
      valid.push_back(spec);
    } catch (const InvalidArgument&) {  // a variant of a compressor not registered here
    }
  }
  return valid;
}

// A tensor shape for n elements that matrix compressors can use.
inline std::vector<int64_t> fuzzShape(size_t n) {
  if (n == 1000) return {40, 25};
  if (n == 4097) return {17, 241};
  return {static_cast<int64_t>(n)};
}

// The state a valid packet of `spec` is encoded with: the shape above, and
// for TernGrad (one scale per tensor) a fused bucket of three tensors.
inline CompressorState fuzzState(const std::string& spec, size_t n) {
  CompressorState state;
  state.seed = 7;
  state.shape = fuzzShape(n);
  if (spec.starts_with("terngrad") && n >= 3) {
    const auto third = static_cast<int64_t>(n / 3);
    state.layout = {{third}, {1, third}, {static_cast<int64_t>(n) - 2 * third}};
  }
  return state;
}

}  // namespace tetrad::testing
