// Random-k (see randomk.h). Encode: O(k) random draws + an n/64-word bitmap
// scan for the shared indices, O(k) gather. Summable aggregation all-reduces
// k floats: ring cost 2(p-1)α + 2((p-1)/p)·4k·β.
#include "tetrad/compress/randomk.h"

#include <fmt/format.h>

#include <bit>
#include <cstring>

#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/selection.h"

namespace tetrad {
namespace {

constexpr uint64_t kIndexSalt = 0x72616e646f6d6b31ull;  // "randomk1"
constexpr uint16_t kScaledFlag = 1;

// SplitMix64 sequence with an unbiased bounded draw (Lemire's method).
class IndexStream {
 public:
  IndexStream(uint64_t seed, uint64_t step) : state_(splitMix64(seed ^ kIndexSalt) + step) {}
  uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    return splitMix64(state_);
  }
  // Uniform in [0, bound), bound > 0.
  uint64_t below(uint64_t bound) {
    unsigned __int128 m = static_cast<unsigned __int128>(next()) * bound;
    uint64_t low = static_cast<uint64_t>(m);
    if (low < bound) {
      const uint64_t floor = (0 - bound) % bound;
      while (low < floor) {
        m = static_cast<unsigned __int128>(next()) * bound;
        low = static_cast<uint64_t>(m);
      }
    }
    return static_cast<uint64_t>(m >> 64);
  }

 private:
  uint64_t state_;
};

struct IndexCache {
  size_t n = 0, k = 0;
  uint64_t seed = 0, step = 0;
  bool valid = false;
  std::vector<uint64_t> bitmap;
  std::vector<uint32_t> indices;
};

double scaleOf(bool scaled, size_t n, size_t k) {
  return scaled ? static_cast<double>(n) / static_cast<double>(k) : 1.0;
}

}  // namespace

const std::vector<uint32_t>& randomIndices(size_t n, size_t k, uint64_t seed, uint64_t step) {
  thread_local IndexCache cache;
  if (cache.valid && cache.n == n && cache.k == k && cache.seed == seed && cache.step == step) {
    return cache.indices;
  }
  TETRAD_CHECK(k <= n && n < (size_t{1} << 32), InvalidArgument,
               "random-k of {} indices from {} elements (need k <= n < 2^32)", k, n);
  cache.valid = false;
  cache.bitmap.assign((n + 63) / 64, 0);
  uint64_t* bits = cache.bitmap.data();
  IndexStream stream(seed, step);
  // Floyd: for j in [n-k, n): t = uniform[0, j]; take t unless taken, else j.
  for (size_t j = n - k; j < n; ++j) {
    size_t t = stream.below(j + 1);
    if (bits[t / 64] >> (t % 64) & 1) t = j;
    bits[t / 64] |= uint64_t{1} << (t % 64);
  }
  cache.indices.resize(k);
  size_t written = 0;
  for (size_t word = 0; word < cache.bitmap.size(); ++word) {
    for (uint64_t w = bits[word]; w != 0; w &= w - 1) {
      cache.indices[written++] = static_cast<uint32_t>(word * 64 + std::countr_zero(w));
    }
  }
  cache.n = n;
  cache.k = k;
  cache.seed = seed;
  cache.step = step;
  cache.valid = true;
  return cache.indices;
}

RandomK::RandomK(double ratio, bool scaled) : ratio_(ratio), scaled_(scaled) {
  TETRAD_CHECK(ratio > 0 && ratio <= 1, InvalidArgument, "randomk ratio must be in (0, 1], got {}",
               ratio);
}

std::string RandomK::spec() const {
  return fmt::format("randomk:{}{}", ratio_, scaled_ ? ":scaled" : "");
}

std::vector<float> RandomK::encodeSummableStep(std::span<const float> input,
                                               CompressorState& state) const {
  const size_t n = input.size();
  const size_t k = keptCount(n, ratio_);
  const std::vector<uint32_t>& indices = randomIndices(n, k, state.seed, state.step);
  const float scale = static_cast<float>(scaleOf(scaled_, n, k));
  std::vector<float> values(k);
  for (size_t j = 0; j < k; ++j) values[j] = input[indices[j]] * scale;
  return values;
}

void RandomK::expandSummedStep(std::span<const float> summed, const CompressorState& state,
                               uint64_t step, std::span<float> output) const {
  const size_t n = output.size();
  const size_t k = keptCount(n, ratio_);
  TETRAD_CHECK(summed.size() == k, InvalidArgument,
               "randomk expandSummed: {} values for k = {} (n = {}, step {})", summed.size(), k, n,
               step);
  const std::vector<uint32_t>& indices = randomIndices(n, k, state.seed, step);
  std::fill(output.begin(), output.end(), 0.0f);
  for (size_t j = 0; j < k; ++j) output[indices[j]] = summed[j];
}

Packet RandomK::encodeStep(std::span<const float> input, CompressorState& state) const {
  const std::vector<float> values = encodeSummableStep(input, state);
  Packet packet;
  reservePacket(packet.bytes, kPacketHeaderBytes + 20 + 4 * values.size(), state);
  ByteWriter writer(packet.bytes);
  writePacketHeader(writer, PacketKind::kRandomK, input.size(), scaled_ ? kScaledFlag : 0);
  writer.put<uint64_t>(state.seed);
  writer.put<uint64_t>(state.step);
  writer.put<uint32_t>(static_cast<uint32_t>(values.size()));
  writer.putBytes(asBytes(std::span<const float>(values)));
  return packet;
}

void RandomK::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const PacketHeader header = readPacketHeader(reader, PacketKind::kRandomK, output.size());
  TETRAD_CHECK((header.flags & ~kScaledFlag) == 0, ProtocolError,
               "randomk packet has unknown flags {:#x}", header.flags);
  const uint64_t seed = reader.get<uint64_t>("randomk seed");
  const uint64_t step = reader.get<uint64_t>("randomk step");
  const uint32_t k = reader.get<uint32_t>("randomk count");
  TETRAD_CHECK(k <= output.size(), ProtocolError,
               "randomk packet claims {} values for a tensor of {} elements", k, output.size());
  ConstBytes values = reader.getBytes(size_t{k} * sizeof(float), "randomk values");
  reader.expectEnd("randomk packet");
  const std::vector<uint32_t>& indices = randomIndices(output.size(), k, seed, step);
  for (size_t j = 0; j < k; ++j) {
    float value;
    std::memcpy(&value, values.data() + j * sizeof(float), sizeof(value));
    output[indices[j]] += value;
  }
}

double RandomK::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  const double bytes = kPacketHeaderBytes + 20.0 + 4.0 * keptCount(count, ratio_);
  return 8.0 * bytes / static_cast<double>(count);
}

CompressorPtr makeRandomK(const CompressorParams& params) {
  params.expectParamCount(1, 2);
  const double ratio = params.ratio(0);
  params.expectKnown(1, {"scaled"});
  return std::make_unique<RandomK>(ratio, params.hasFlag("scaled", 1));
}

}  // namespace tetrad
