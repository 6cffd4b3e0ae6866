// DGC (see dgc.h). Encode: two streaming passes over n (clip norm, momentum
// + accumulation update) + one Top-k selection + O(k) masking and packet
// write; decode O(k). Gather aggregation: each rank receives (p-1)·(20 + 8k)
// bytes.
#include "tetrad/compress/dgc.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tetrad/compress/sparse_packet.h"
#include "tetrad/compress/topk.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {

Dgc::Dgc(const DgcOptions& options) : options_(options) {
  TETRAD_CHECK(options.ratio > 0 && options.ratio <= 1, InvalidArgument,
               "dgc ratio must be in (0, 1], got {}", options.ratio);
  TETRAD_CHECK(options.momentum > 0 && options.momentum < 1, InvalidArgument,
               "dgc momentum must be in (0, 1), got {}", options.momentum);
  TETRAD_CHECK(options.warmupStages >= 0 && options.stageSteps >= 1, InvalidArgument,
               "dgc warm-up needs warmup >= 0 and stage >= 1, got {} and {}", options.warmupStages,
               options.stageSteps);
  TETRAD_CHECK(options.clipNorm >= 0 && std::isfinite(options.clipNorm), InvalidArgument,
               "dgc clip must be a finite number >= 0, got {}", options.clipNorm);
}

std::string Dgc::spec() const {
  std::string text = fmt::format("dgc:{}:momentum={}", options_.ratio, options_.momentum);
  if (options_.warmupStages > 0) {
    text += fmt::format(":warmup={}:stage={}", options_.warmupStages, options_.stageSteps);
  }
  if (options_.clipNorm > 0) text += fmt::format(":clip={}", options_.clipNorm);
  return text + selectionSuffix(options_.method);
}

double Dgc::densityAt(uint64_t step) const {
  const uint64_t stage = step / static_cast<uint64_t>(options_.stageSteps);
  if (stage >= static_cast<uint64_t>(options_.warmupStages)) return options_.ratio;
  return std::pow(options_.ratio, static_cast<double>(stage + 1) / (options_.warmupStages + 1));
}

std::vector<Compressor::WarmupPhase> Dgc::warmupPhases() const {
  std::vector<WarmupPhase> phases;
  for (int stage = 0; stage < options_.warmupStages; ++stage) {
    const uint64_t first = uint64_t(stage) * uint64_t(options_.stageSteps);
    phases.push_back({fmt::format("dgc:{:.9g}", densityAt(first)), options_.stageSteps});
  }
  return phases;
}

namespace {

// u = m·u + scale·x and v += u on elements [offset, offset + x.size()). One
// compiled body for both encodes, so that they contract to FMAs alike.
[[gnu::noinline]] void accumulateMomentum(std::span<const float> x, size_t offset, float m,
                                          float scale, std::vector<float>& u,
                                          std::vector<float>& v) {
  float* __restrict uu = u.data() + offset;
  float* __restrict vv = v.data() + offset;
  for (size_t i = 0; i < x.size(); ++i) {
    uu[i] = m * uu[i] + scale * x[i];
    vv[i] += uu[i];
  }
}

}  // namespace

Packet Dgc::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  std::vector<float>& u = state.buffer("momentum", n);
  std::vector<float>& v = state.buffer("accumulation", n);
  float scale = 1.0f;
  if (options_.clipNorm > 0) {
    const double norm = std::sqrt(vmath::sumSquares(input));
    if (norm > options_.clipNorm) scale = static_cast<float>(options_.clipNorm / norm);
  }
  accumulateMomentum(input, 0, static_cast<float>(options_.momentum), scale, u, v);
  return selectAndMask(u, v, state);
}

// Without clipping, the 16-bit input is widened a cache-sized chunk at a time
// inside the momentum pass; with it, the norm needs the whole tensor first
// (and the chunked sum would round differently), so the default widens.
Packet Dgc::encodeHalfStep(HalfInput input, CompressorState& state) const {
  if (options_.clipNorm > 0) return Compressor::encodeHalfStep(input, state);
  const size_t n = input.size();
  std::vector<float>& u = state.buffer("momentum", n);
  std::vector<float>& v = state.buffer("accumulation", n);
  constexpr size_t kChunk = 2048;
  float chunk[kChunk];
  for (size_t begin = 0; begin < n; begin += kChunk) {
    std::span<float> x(chunk, std::min(kChunk, n - begin));
    widenHalf(input.format, input.bytes.data() + 2 * begin, x);
    accumulateMomentum(x, begin, static_cast<float>(options_.momentum), 1.0f, u, v);
  }
  return selectAndMask(u, v, state);
}

Packet Dgc::selectAndMask(std::vector<float>& u, std::vector<float>& v,
                          CompressorState& state) const {
  const size_t n = v.size();
  thread_local std::vector<uint32_t> indices;
  selectTopK(v, keptCount(n, densityAt(state.step)), options_.method, indices);
  Packet packet = writeSparsePacket(PacketKind::kDgc, v, indices);
  for (uint32_t i : indices) {
    u[i] = 0;
    v[i] = 0;
  }
  return packet;
}

void Dgc::decodeAdd(ConstBytes packet, std::span<float> output) const {
  addSparsePacket(packet, PacketKind::kDgc, output);
}

double Dgc::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  return 8.0 * static_cast<double>(sparsePacketBytes(keptCount(count, options_.ratio))) /
         static_cast<double>(count);
}

CompressorPtr makeDgc(const CompressorParams& params) {
  params.expectParamCount(1, 7);
  DgcOptions options;
  options.ratio = params.ratio(0);
  params.expectKnown(1, {"exact", "approx"}, {"momentum", "warmup", "stage", "clip"});
  options.momentum = params.keyNumber("momentum", 1).value_or(options.momentum);
  if (options.momentum >= 1) params.fail("momentum must be in (0, 1)");
  auto integerKey = [&](std::string_view key, int64_t fallback) {
    const double value = params.keyNumber(key, 1).value_or(static_cast<double>(fallback));
    if (value != std::floor(value) || value > 1e9) {
      params.fail(fmt::format("{} must be a whole number, got {}", key, value));
    }
    return static_cast<int64_t>(value);
  };
  options.warmupStages = static_cast<int>(integerKey("warmup", 0));
  options.stageSteps = integerKey("stage", 1);
  options.clipNorm = params.keyNumber("clip", 1).value_or(0.0);
  options.method = parseSelectionMethod(params, 1);
  return std::make_unique<Dgc>(options);
}

}  // namespace tetrad
