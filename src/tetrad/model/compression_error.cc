// ω and δ of a compressor from encode + decodeAdd draws (compression_error.h).
#include "tetrad/model/compression_error.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"
#include "tetrad/model/exchange_cost.h"

namespace tetrad::model {
namespace {

// Σ x², in double.
double squaredNorm(std::span<const float> x) {
  double sum = 0;
  for (float v : x) sum += double(v) * double(v);
  return sum;
}

// ‖C(x) − x‖² of one draw with a fresh copy of `blank` seeded `seed`.
double drawError(const Compressor& compressor, std::span<const float> x,
                 const CompressorState& blank, uint64_t seed, std::vector<float>& decoded) {
  CompressorState state = blank;
  state.seed = seed;
  const Packet packet = compressor.encode(x, state);
  decoded.assign(x.size(), 0.0f);
  compressor.decodeAdd(packet.bytes, decoded);
  double error = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double d = double(decoded[i]) - double(x[i]);
    error += d * d;
  }
  return error;
}

// Mean and standard error of the per-draw ratios.
CompressionError summarise(const std::vector<double>& ratios, uint64_t elements) {
  CompressionError e;
  e.draws = int(ratios.size());
  e.elements = elements;
  double sum = 0;
  for (double r : ratios) sum += r;
  e.ratio = sum / double(ratios.size());
  if (ratios.size() > 1) {
    double squares = 0;
    for (double r : ratios) squares += (r - e.ratio) * (r - e.ratio);
    const double variance = squares / double(ratios.size() - 1);
    e.standardError = std::sqrt(variance / double(ratios.size()));
  }
  return e;
}

// The first buckets, up to kErrorMeasureElements floats (at least one, cut
// to that size when it alone is larger; a cut bucket is a square matrix).
void keepFirstBuckets(std::vector<BucketRange>& buckets) {
  uint64_t total = 0;
  size_t keep = 0;
  while (keep < buckets.size() &&
         (keep == 0 || total + buckets[keep].count <= kErrorMeasureElements)) {
    total += buckets[keep].count;
    ++keep;
  }
  buckets.resize(keep);
  if (!buckets.empty() && buckets[0].count > kErrorMeasureElements) {
    const double side = std::floor(std::sqrt(double(kErrorMeasureElements)));
    buckets[0].count = size_t(side) * size_t(side);
    buckets[0].shape = {int64_t(side), int64_t(side)};
    buckets[0].tensorShapes.clear();
  }
}

CompressorState blankOf(const BucketRange& bucket) {
  CompressorState blank;
  blank.shape = bucket.shape;
  if (bucket.tensorShapes.size() > 1) blank.layout = bucket.tensorShapes;
  return blank;
}

}  // namespace

std::vector<float> gaussianVector(size_t count, uint64_t seed) {
  std::vector<float> values(count);
  uint64_t stream = 0;
  auto uniform = [&] {  // in (0, 1]
    return (double(mixSeed(seed, stream++) >> 11) + 1.0) * 0x1.0p-53;
  };
  for (size_t i = 0; i < count; i += 2) {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    const double angle = 2.0 * std::numbers::pi * uniform();
    values[i] = float(radius * std::cos(angle));
    if (i + 1 < count) values[i + 1] = float(radius * std::sin(angle));
  }
  return values;
}

CompressionError measureCompressionError(const Compressor& compressor, std::span<const float> x,
                                         const std::vector<int64_t>& shape, int draws,
                                         uint64_t seed) {
  TETRAD_CHECK(draws >= 1, InvalidArgument, "draws must be >= 1, got {}", draws);
  const double norm = squaredNorm(x);
  TETRAD_CHECK(!x.empty() && norm > 0, InvalidArgument,
               "compression error of '{}': the vector is empty or zero", compressor.spec());
  CompressorState blank;
  blank.shape = shape;
  std::vector<float> decoded;
  std::vector<double> ratios;
  for (int d = 0; d < draws; ++d) {
    ratios.push_back(drawError(compressor, x, blank, seed + uint64_t(d), decoded) / norm);
  }
  return summarise(ratios, x.size());
}

CompressionError measureWorkloadError(const Compressor& compressor, const Workload& workload,
                                      int draws) {
  TETRAD_CHECK(draws >= 1, InvalidArgument, "draws must be >= 1, got {}", draws);
  std::vector<BucketRange> buckets = exchangeBuckets(workload, workload.bucketBytes);
  keepFirstBuckets(buckets);
  uint64_t total = 0;
  std::vector<std::vector<float>> inputs;
  std::vector<CompressorState> blanks;
  double norm = 0;
  for (size_t b = 0; b < buckets.size(); ++b) {
    inputs.push_back(gaussianVector(buckets[b].count, mixSeed(0x7e7a5eed, b)));
    norm += squaredNorm(inputs.back());
    blanks.push_back(blankOf(buckets[b]));
    total += buckets[b].count;
  }
  std::vector<float> decoded;
  std::vector<double> ratios;
  for (int d = 0; d < draws; ++d) {
    double error = 0;
    for (size_t b = 0; b < buckets.size(); ++b) {
      error += drawError(compressor, inputs[b], blanks[b], 1 + uint64_t(d), decoded);
    }
    ratios.push_back(error / norm);
  }
  return summarise(ratios, total);
}

ErrorSums measureBucketError(const Compressor& compressor, std::span<const float> values,
                             std::vector<BucketRange> buckets, uint64_t seed) {
  keepFirstBuckets(buckets);
  ErrorSums sums;
  std::vector<float> decoded;
  for (const BucketRange& b : buckets) {
    TETRAD_CHECK(b.offset + b.count <= values.size(), InvalidArgument,
                 "compression error: bucket [{}, {}) outside a vector of {} floats", b.offset,
                 b.offset + b.count, values.size());
    const std::span<const float> x = values.subspan(b.offset, b.count);
    const double norm = squaredNorm(x);
    if (!(norm > 0) || !std::isfinite(norm)) continue;
    sums.error += drawError(compressor, x, blankOf(b), seed, decoded);
    sums.norm += norm;
    sums.elements += b.count;
  }
  return sums;
}

}  // namespace tetrad::model
