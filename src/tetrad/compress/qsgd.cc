// QSGD (see qsgd.h).
//
// Packet (version 2): header (flags bit 0: Elias coding), u32 s, u32 bucket
// size d, float ‖bucket‖₂ of each of the ceil(n/d) buckets, payload:
// fixed-width codes (bit_packing.h), or the Elias bit stream (LSB first).
// Cost: two passes (norms, then stochastic levels);
// n·ceil(log2(2s+1))/8 + 24 + 4·ceil(n/d) bytes on the wire with fixed-width
// codes.
#include "tetrad/compress/qsgd.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "tetrad/compress/bit_packing.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/counter_rng_simd.h"
#include "tetrad/compress/packet_alloc.h"
#include "tetrad/compress/vector_math.h"

namespace tetrad {
namespace {

constexpr uint16_t kEliasFlag = 1;

// Appends bits LSB first.
class BitWriter {
 public:
  explicit BitWriter(ByteBuffer& out) : out_(out) {}
  void put(uint64_t value, unsigned count) {  // count <= 32
    acc_ |= value << fill_;
    fill_ += count;
    while (fill_ >= 8) {
      out_.push_back(static_cast<std::byte>(acc_ & 0xff));
      acc_ >>= 8;
      fill_ -= 8;
    }
  }
  void flush() {
    if (fill_ > 0) out_.push_back(static_cast<std::byte>(acc_ & 0xff));
    acc_ = 0;
    fill_ = 0;
  }

 private:
  ByteBuffer& out_;
  uint64_t acc_ = 0;
  unsigned fill_ = 0;
};

class BitReader {
 public:
  explicit BitReader(ConstBytes in) : in_(in) {}
  unsigned bit() {
    TETRAD_CHECK(pos_ < 8 * in_.size(), ProtocolError, "qsgd Elias stream truncated after {} bits",
                 pos_);
    unsigned b = bitAt(in_, pos_);
    ++pos_;
    return b;
  }
  size_t bytesUsed() const { return (pos_ + 7) / 8; }

 private:
  ConstBytes in_;
  size_t pos_ = 0;
};

// Elias gamma of v >= 1: N = floor(log2 v) zeros, then v's N+1 bits from the
// most significant one down.
void putGamma(BitWriter& writer, uint32_t v) {
  const unsigned n = static_cast<unsigned>(std::bit_width(v)) - 1;
  writer.put(0, n);
  for (int k = static_cast<int>(n); k >= 0; --k) writer.put((v >> k) & 1u, 1);
}

uint32_t getGamma(BitReader& reader) {
  unsigned zeros = 0;
  while (reader.bit() == 0) {
    ++zeros;
    TETRAD_CHECK(zeros <= 15, ProtocolError, "qsgd Elias code longer than 16 bits");
  }
  uint32_t v = 1;
  for (unsigned k = 0; k < zeros; ++k) v = (v << 1) | reader.bit();
  return v;
}

// codes[i] = s + sign(x[i])·l[i] for i in [from, to), l[i] = |x[i]|·scale
// rounded stochastically with counter i of `key` (scale = s/‖bucket‖₂). A
// flat loop without branches, so that it vectorises.
void quantize(const float* __restrict x, size_t from, size_t to, float scale, int s,
              CounterRng::Key key, uint16_t* __restrict codes) {
  // r >= 0 and r <= s (up to rounding), so truncation is floor; std::floor
  // itself would keep GCC from vectorising the loop.
  auto one = [&](size_t i) {
    const float r = std::fabs(x[i]) * scale;
    const int low = static_cast<int>(r);
    const float u = CounterRng::uniform(CounterRng::mixBits(key, static_cast<uint32_t>(i)));
    const int l = std::min(low + (u < r - static_cast<float>(low) ? 1 : 0), s);
    const int negative = std::signbit(x[i]) ? 1 : 0;
    codes[i] = static_cast<uint16_t>(s + ((l ^ -negative) + negative));
  };
  size_t i = from;
#if TETRAD_RNG_SIMD
  // The same operations on 16 lanes (AVX-512F), the Weyl terms of the
  // counters stepped by addition: the same bits as one(). The first few
  // elements go one by one so that the vector loads are line-aligned.
  using simd::F32x16, simd::I32x16, simd::U32x16;
  for (const size_t head = from + simd::alignedHead(x + from, to - from); i < head; ++i) one(i);
  U32x16 weyl = (simd::firstCounters() + static_cast<uint32_t>(i)) * 0x9e3779b9u;
  for (; i + 16 <= to; i += 16) {
    vmath::prefetchAhead(x + i);
    U32x16 bits;
    std::memcpy(&bits, x + i, sizeof(bits));
    const F32x16 r = std::bit_cast<F32x16>(bits & 0x7fffffffu) * scale;
    const I32x16 low = __builtin_convertvector(r, I32x16);
    const F32x16 u = simd::uniform(simd::rngMixBits(key, weyl));
    const I32x16 up = u < r - __builtin_convertvector(low, F32x16);  // -1 where rounding up
    I32x16 l = low - up;
    l = l > s ? I32x16{} + s : l;
    const I32x16 negative = std::bit_cast<I32x16>(bits) >> 31;  // -1 for a set sign bit
    simd::storeCodes(codes + i, std::bit_cast<U32x16>(s + ((l ^ negative) - negative)));
    weyl += 16u * 0x9e3779b9u;
  }
#endif
  for (; i < to; ++i) one(i);
}

// Number of norms of a tensor of n elements in buckets of d.
size_t bucketCount(size_t n, size_t d) {
  return n / d + (n % d != 0 ? 1 : 0);
}

}  // namespace

QsgdCompressor::QsgdCompressor(int levels, bool elias, size_t bucket)
    : levels_(levels),
      elias_(elias),
      bits_(static_cast<unsigned>(std::bit_width(static_cast<unsigned>(2 * levels)))),
      bucket_(bucket) {
  TETRAD_CHECK(levels >= 1 && levels <= kQsgdMaxLevels, InvalidArgument,
               "qsgd: levels {} not in [1, {}]", levels, kQsgdMaxLevels);
  TETRAD_CHECK(bucket >= 1 && bucket <= kQsgdMaxBucket, InvalidArgument,
               "qsgd: bucket of {} elements not in [1, {}]", bucket, kQsgdMaxBucket);
}

std::string QsgdCompressor::spec() const {
  std::string text = fmt::format("qsgd:{}", levels_);
  if (elias_) text += ":elias";
  if (bucket_ != kQsgdDefaultBucket) text += fmt::format(":bucket={}", bucket_);
  return text;
}

size_t QsgdCompressor::fixedPacketBytes(size_t count) const {
  return kPacketHeaderBytes + 8 + 4 * bucketCount(count, bucket_) + packedBytes(count, bits_);
}

// One norm per bucket of bucket_ elements of x, appended to `norms`; x starts
// at a bucket boundary. A non-finite bucket gives a non-finite norm and all
// levels 0, so it decodes to NaN (the failure propagates; no undefined
// conversions).
void QsgdCompressor::appendNorms(std::span<const float> x, std::vector<float>& norms) const {
  for (size_t begin = 0; begin < x.size(); begin += bucket_) {
    norms.push_back(static_cast<float>(
        std::sqrt(vmath::sumSquares(x.subspan(begin, std::min(bucket_, x.size() - begin))))));
  }
}

Packet QsgdCompressor::encodeStep(std::span<const float> input, CompressorState& state) const {
  std::vector<float> norms;
  norms.reserve(bucketCount(input.size(), bucket_));
  appendNorms(input, norms);
  return encodeWith(
      input.size(), norms, [&](size_t start, size_t) { return input.data() + start; }, state);
}

bool QsgdCompressor::readsHalfInput() const {
  return bucket_ <= kPackChunk && kPackChunk % bucket_ == 0;
}

// 16-bit input is widened a block at a time, in cache, once for the norms and
// once for the levels, where the buckets tile the blocks (the default bucket
// of 512 does); otherwise the default widens the whole tensor first.
Packet QsgdCompressor::encodeHalfStep(HalfInput input, CompressorState& state) const {
  if (!readsHalfInput()) return Compressor::encodeHalfStep(input, state);
  const size_t n = input.size();
  float wide[kPackChunk];
  const auto widened = [&](size_t start, size_t len) {
    widenHalf(input.format, input.bytes.data() + 2 * start, std::span<float>(wide, len));
    return static_cast<const float*>(wide);
  };
  std::vector<float> norms;
  norms.reserve(bucketCount(n, bucket_));
  for (size_t start = 0; start < n; start += kPackChunk) {
    const size_t len = std::min(kPackChunk, n - start);
    appendNorms(std::span<const float>(widened(start, len), len), norms);
  }
  return encodeWith(n, norms, widened, state);
}

Packet QsgdCompressor::encodeWith(size_t n, const std::vector<float>& norms,
                                  const std::function<const float*(size_t, size_t)>& blockAt,
                                  CompressorState& state) const {
  const int s = levels_;
  const auto scaleOf = [&](size_t b) {
    const float norm = norms[b];
    return norm > 0 && std::isfinite(norm) ? static_cast<float>(s) / norm : 0.0f;
  };
  const uint32_t header[2] = {static_cast<uint32_t>(s), static_cast<uint32_t>(bucket_)};

  Packet packet;
  MutableBytes payload;
  if (elias_) {  // variable length: appended bit by bit
    reservePacket(packet.bytes, kPacketHeaderBytes + 8 + 4 * norms.size() + n / 4 + 16, state);
    ByteWriter writer(packet.bytes);
    writePacketHeader(writer, PacketKind::kQsgd, n, kEliasFlag);
    for (uint32_t value : header) writer.put<uint32_t>(value);
    for (float norm : norms) writer.put<float>(norm);
  } else {  // every byte after the header is written below (startPacket: no zero-fill)
    MutableBytes body =
        startPacket(packet.bytes, fixedPacketBytes(n), PacketKind::kQsgd, n, 0, state);
    std::memcpy(body.data(), header, sizeof(header));
    std::memcpy(body.data() + sizeof(header), norms.data(), 4 * norms.size());
    payload = body.subspan(sizeof(header) + 4 * norms.size());
  }
  BitWriter eliasWriter(packet.bytes);

  const CounterRng rng(state.seed, state.rank, state.step,
                       static_cast<uint64_t>(PacketKind::kQsgd));
  uint16_t codes[kPackChunk];
  for (size_t start = 0, block = 0; start < n; start += kPackChunk, ++block) {
    const size_t len = std::min(kPackChunk, n - start);
    const CounterRng::Key key = rng.blockKey(block);
    const float* x = blockAt(start, len);
    // Bucket by bucket (a block may hold several, a bucket span blocks).
    for (size_t from = 0; from < len;) {
      const size_t b = (start + from) / bucket_;
      const size_t to = std::min(len, (b + 1) * bucket_ - start);
      const float scale = scaleOf(b);
      if (scale == 0) {
        std::fill(codes + from, codes + to, static_cast<uint16_t>(s));  // all levels 0
      } else {
        quantize(x, from, to, scale, s, key, codes);
      }
      from = to;
    }
    if (!elias_) {
      packCodes(std::span<const uint16_t>(codes, len), bits_,
                payload.subspan(block * packedBytes(kPackChunk, bits_), packedBytes(len, bits_)));
      continue;
    }
    for (size_t i = 0; i < len; ++i) {
      const int signedLevel = static_cast<int>(codes[i]) - s;
      const uint32_t l = static_cast<uint32_t>(std::abs(signedLevel));
      putGamma(eliasWriter, l + 1);
      if (l > 0) eliasWriter.put(signedLevel < 0 ? 1 : 0, 1);
    }
  }
  if (elias_) eliasWriter.flush();
  return packet;
}

void QsgdCompressor::decodeAdd(ConstBytes packet, std::span<float> output) const {
  ByteReader reader(packet);
  const size_t n = output.size();
  PacketHeader header = readPacketHeader(reader, PacketKind::kQsgd, n);
  TETRAD_CHECK((header.flags & ~kEliasFlag) == 0, ProtocolError, "qsgd packet: unknown flags {:#x}",
               header.flags);
  const bool elias = (header.flags & kEliasFlag) != 0;
  TETRAD_CHECK(elias == elias_, ProtocolError, "qsgd packet: {} coding where {} was expected",
               elias ? "Elias" : "fixed-width", elias_ ? "Elias" : "fixed-width");
  const uint32_t s = reader.get<uint32_t>("qsgd levels");
  TETRAD_CHECK(s == static_cast<uint32_t>(levels_), ProtocolError,
               "qsgd packet: {} levels where {} were expected", s, levels_);
  const uint32_t bucket = reader.get<uint32_t>("qsgd bucket size");
  TETRAD_CHECK(bucket == bucket_, ProtocolError,
               "qsgd packet: buckets of {} elements where {} were expected", bucket, bucket_);
  // One norm per bucket: the count follows from n and the bucket size.
  std::vector<float> units(bucketCount(n, bucket_));
  ConstBytes norms = reader.getBytes(4 * units.size(), "qsgd norms");
  for (size_t b = 0; b < units.size(); ++b) {
    float norm = 0;
    std::memcpy(&norm, norms.data() + 4 * b, sizeof(float));
    units[b] = norm / static_cast<float>(s);
  }
  const int maxCode = 2 * levels_;

  if (elias) {
    ConstBytes stream = reader.getBytes(reader.remaining(), "qsgd Elias stream");
    BitReader bits(stream);
    float* out = output.data();
    for (size_t i = 0; i < n; ++i) {
      const uint32_t l = getGamma(bits) - 1;
      TETRAD_CHECK(l <= s, ProtocolError, "qsgd packet: level {} above {} at element {}", l, s, i);
      const float value = units[i / bucket_] * static_cast<float>(l);
      out[i] += (l > 0 && bits.bit()) ? -value : value;
    }
    TETRAD_CHECK(bits.bytesUsed() == stream.size(), ProtocolError,
                 "qsgd packet: {} trailing bytes after the Elias stream",
                 stream.size() - bits.bytesUsed());
    return;
  }

  ConstBytes payload = reader.getBytes(packedBytes(n, bits_), "qsgd codes");
  reader.expectEnd("qsgd packet");
  unpackCodesByChunk(payload, n, bits_, [&](size_t start, std::span<const uint16_t> codes) {
    int largest = 0;
    for (const uint16_t c : codes) largest = std::max(largest, static_cast<int>(c));
    TETRAD_CHECK(largest <= maxCode, ProtocolError,
                 "qsgd packet: code {} above {} in elements [{}, {})", largest, maxCode, start,
                 start + codes.size());
    float* out = output.data() + start;
    for (size_t from = 0; from < codes.size();) {
      const size_t b = (start + from) / bucket_;
      const size_t to = std::min(codes.size(), (b + 1) * bucket_ - start);
      const float unit = units[b];
      for (size_t i = from; i < to; ++i) {
        out[i] += unit * static_cast<float>(static_cast<int>(codes[i]) - levels_);
      }
      from = to;
    }
  });
}

double QsgdCompressor::bitsPerElement(size_t count) const {
  if (count == 0) return 0.0;
  return 8.0 * static_cast<double>(fixedPacketBytes(count)) / static_cast<double>(count);
}

CompressorPtr makeQsgd(const CompressorParams& params) {
  params.expectParamCount(1, 3);
  const int64_t levels = params.integer(0, "levels", 1, kQsgdMaxLevels);
  params.expectKnown(1, {"elias"}, {"bucket"});
  const int64_t bucket =
      params.keyInteger("bucket", "bucket (elements per norm)", 1, kQsgdMaxBucket, 1)
          .value_or(kQsgdDefaultBucket);
  return std::make_unique<QsgdCompressor>(static_cast<int>(levels), params.hasFlag("elias", 1),
                                          static_cast<size_t>(bucket));
}

}  // namespace tetrad
