// Packet header, CompressorState (buffers, checkpoint format), the
// Compressor entry points that advance the step, and its defaults. See
// compressor.h.
//
// State checkpoint format (little-endian):
//   u32 magic 'TCST', u32 version (2), u32 shape rank, i64 dims[rank],
//   u32 layout tensors, per tensor u32 rank and i64 dims[rank] (version 2
//   only; version 1 has no layout), u64 seed, i32 rank, u64 step, u32 buffer
//   count, then per buffer (in name order): u32 name length, name bytes, u64
//   float count, floats.
#include "tetrad/compress/compressor.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "tetrad/core/error.h"
#include "tetrad/core/fixed_byte_writer.h"

namespace tetrad {
namespace {

constexpr uint32_t kStateMagic = 0x54534354;  // "TCST"
constexpr uint32_t kStateVersion = 2;
constexpr uint32_t kMaxLayoutTensors = 1u << 20;
constexpr uint32_t kMaxShapeRank = 16;
constexpr uint32_t kMaxBufferName = 256;

const char* aggregationName(Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::kSummable:
      return "summable";
    case Aggregation::kGather:
      return "gather";
    case Aggregation::kCustom:
      return "custom";
  }
  return "?";
}

}  // namespace

uint8_t packetVersion(PacketKind kind) {
  // 2: TernGrad with one scale per tensor, QSGD with one norm per bucket.
  return kind == PacketKind::kTernGrad || kind == PacketKind::kQsgd ? 2 : 1;
}

void writePacketHeader(ByteWriter& writer, PacketKind kind, uint64_t count, uint16_t flags) {
  writer.put<uint8_t>(static_cast<uint8_t>(kind));
  writer.put<uint8_t>(packetVersion(kind));
  writer.put<uint16_t>(flags);
  writer.put<uint32_t>(0);
  writer.put<uint64_t>(count);
}

PacketHeader readPacketHeader(ByteReader& reader, PacketKind kind, uint64_t expectedCount) {
  PacketHeader header;
  header.kind = reader.get<uint8_t>("packet kind");
  header.version = reader.get<uint8_t>("packet version");
  header.flags = reader.get<uint16_t>("packet flags");
  header.reserved = reader.get<uint32_t>("packet reserved field");
  header.count = reader.get<uint64_t>("packet element count");
  TETRAD_CHECK(header.kind == static_cast<uint8_t>(kind), ProtocolError,
               "packet kind {} where kind {} was expected", header.kind, static_cast<int>(kind));
  TETRAD_CHECK(header.version == packetVersion(kind), ProtocolError,
               "packet version {} (kind {}) where version {} was expected", header.version,
               header.kind, packetVersion(kind));
  TETRAD_CHECK(header.reserved == 0, ProtocolError,
               "packet reserved field is {:#x} (kind {}), must be 0", header.reserved, header.kind);
  TETRAD_CHECK(header.count == expectedCount, ProtocolError,
               "packet holds {} elements (kind {}) where {} were expected", header.count,
               header.kind, expectedCount);
  return header;
}

std::vector<TensorPart> tensorsOf(const CompressorState& state, size_t count) {
  auto elements = [](const std::vector<int64_t>& shape) {
    uint64_t product = 1;
    for (int64_t dim : shape) {
      TETRAD_CHECK(dim >= 0, InvalidArgument, "negative dimension {} in a tensor shape", dim);
      product *= static_cast<uint64_t>(dim);
    }
    return product;
  };
  std::vector<TensorPart> parts;
  if (state.layout.empty()) {
    if (!state.shape.empty()) {
      TETRAD_CHECK(elements(state.shape) == count, InvalidArgument,
                   "state shape has {} elements but the vector has {}", elements(state.shape),
                   count);
    }
    parts.push_back({0, count, state.shape});
    return parts;
  }
  size_t offset = 0;
  for (const std::vector<int64_t>& shape : state.layout) {
    const uint64_t n = elements(shape);
    TETRAD_CHECK(n <= count - offset, InvalidArgument,
                 "state layout of {} tensors holds more than the vector's {} elements",
                 state.layout.size(), count);
    parts.push_back({offset, size_t(n), shape});
    offset += size_t(n);
  }
  TETRAD_CHECK(offset == count, InvalidArgument,
               "state layout of {} tensors holds {} elements but the vector has {}",
               state.layout.size(), offset, count);
  return parts;
}

std::vector<float>& CompressorState::buffer(const std::string& name, size_t size) {
  std::vector<float>& values = buffers[name];
  if (values.size() != size) values.resize(size, 0.0f);
  return values;
}

void CompressorState::adoptForRank(int newRank) {
  rank = newRank;
  for (auto& [name, values] : buffers) {
    if (name == "q") continue;  // PowerSGD's warm start: alike on every rank
    std::fill(values.begin(), values.end(), 0.0f);
  }
}

ByteBuffer CompressorState::serialize() const {
  size_t size = 4 * 4 + 8 * shape.size() + 4 + 8 + 4 + 8;
  for (const std::vector<int64_t>& tensor : layout) size += 4 + 8 * tensor.size();
  for (const auto& [name, values] : buffers) size += 4 + name.size() + 8 + 4 * values.size();
  ByteBuffer out(size);
  FixedByteWriter writer(out);
  auto put = [&writer](const void* data, size_t bytes) { writer.putBytes(data, bytes); };
  auto putValue = [&writer](auto value) { writer.put(value); };
  putValue(kStateMagic);
  putValue(kStateVersion);
  putValue(static_cast<uint32_t>(shape.size()));
  for (int64_t dim : shape) putValue(dim);
  putValue(static_cast<uint32_t>(layout.size()));
  for (const std::vector<int64_t>& tensor : layout) {
    putValue(static_cast<uint32_t>(tensor.size()));
    for (int64_t dim : tensor) putValue(dim);
  }
  putValue(seed);
  putValue(static_cast<int32_t>(rank));
  putValue(step);
  putValue(static_cast<uint32_t>(buffers.size()));
  for (const auto& [name, values] : buffers) {
    putValue(static_cast<uint32_t>(name.size()));
    put(name.data(), name.size());
    putValue(static_cast<uint64_t>(values.size()));
    put(values.data(), 4 * values.size());
  }
  return out;
}

CompressorState CompressorState::deserialize(ConstBytes bytes) {
  ByteReader reader(bytes);
  CompressorState state;
  uint32_t magic = reader.get<uint32_t>("state magic");
  TETRAD_CHECK(magic == kStateMagic, ProtocolError,
               "compressor state: bad magic {:#x} (not a tetrad compressor state)", magic);
  uint32_t version = reader.get<uint32_t>("state version");
  TETRAD_CHECK(version == 1 || version == kStateVersion, ProtocolError,
               "compressor state: version {} where 1 or {} was expected", version, kStateVersion);
  auto readShape = [&reader](const char* what) {
    const uint32_t rank = reader.get<uint32_t>("state shape rank");
    TETRAD_CHECK(rank <= kMaxShapeRank, ProtocolError, "compressor state: {} rank {} exceeds {}",
                 what, rank, kMaxShapeRank);
    std::vector<int64_t> shape;
    for (uint32_t i = 0; i < rank; ++i) {
      const int64_t dim = reader.get<int64_t>("state shape");
      TETRAD_CHECK(dim >= 0, ProtocolError, "compressor state: negative dimension {} in {}", dim,
                   what);
      shape.push_back(dim);
    }
    return shape;
  };
  state.shape = readShape("shape");
  if (version >= 2) {
    const uint32_t tensors = reader.get<uint32_t>("state layout size");
    TETRAD_CHECK(tensors <= kMaxLayoutTensors && tensors <= reader.remaining() / 4, ProtocolError,
                 "compressor state: layout of {} tensors with {} bytes left", tensors,
                 reader.remaining());
    for (uint32_t t = 0; t < tensors; ++t) state.layout.push_back(readShape("layout"));
  }
  state.seed = reader.get<uint64_t>("state seed");
  state.rank = reader.get<int32_t>("state rank");
  TETRAD_CHECK(state.rank >= 0, ProtocolError, "compressor state: negative rank {}", state.rank);
  state.step = reader.get<uint64_t>("state step");
  uint32_t count = reader.get<uint32_t>("state buffer count");
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameSize = reader.get<uint32_t>("state buffer name length");
    TETRAD_CHECK(nameSize > 0 && nameSize <= kMaxBufferName, ProtocolError,
                 "compressor state: buffer name length {} not in [1, {}]", nameSize,
                 kMaxBufferName);
    ConstBytes nameBytes = reader.getBytes(nameSize, "state buffer name");
    std::string name(reinterpret_cast<const char*>(nameBytes.data()), nameBytes.size());
    uint64_t size = reader.get<uint64_t>("state buffer size");
    TETRAD_CHECK(size <= reader.remaining() / sizeof(float), ProtocolError,
                 "compressor state: buffer '{}' claims {} floats, only {} bytes left", name, size,
                 reader.remaining());
    ConstBytes data = reader.getBytes(size * sizeof(float), "state buffer");
    auto [it, inserted] = state.buffers.try_emplace(name);
    TETRAD_CHECK(inserted, ProtocolError, "compressor state: buffer '{}' appears twice", name);
    it->second.resize(size);
    if (size > 0) std::memcpy(it->second.data(), data.data(), data.size());
  }
  reader.expectEnd("compressor state");
  return state;
}

// The entry points that consume a step: the one place where state.step
// advances (see compressor.h), after the hook ran with state.step = the index
// of this step. aggregate() (aggregate.cc) consumes its step through them,
// except for the identity's zero-copy all-reduce.
Packet Compressor::encode(std::span<const float> input, CompressorState& state) const {
  Packet packet = encodeStep(input, state);
  ++state.step;
  return packet;
}

std::vector<float> Compressor::encodeSummable(std::span<const float> input,
                                              CompressorState& state) const {
  std::vector<float> values = encodeSummableStep(input, state);
  ++state.step;
  return values;
}

namespace {

void checkHalfInput(const Compressor& compressor, HalfInput input, const CompressorState& state) {
  TETRAD_CHECK(input.bytes.size() % 2 == 0, InvalidArgument,
               "compressor '{}': 16-bit input of {} bytes is not a whole number of values (rank "
               "{})",
               compressor.spec(), input.bytes.size(), state.rank);
}

}  // namespace

Packet Compressor::encode(HalfInput input, CompressorState& state) const {
  checkHalfInput(*this, input, state);
  Packet packet = encodeHalfStep(input, state);
  ++state.step;
  return packet;
}

std::vector<float> Compressor::encodeSummable(HalfInput input, CompressorState& state) const {
  checkHalfInput(*this, input, state);
  std::vector<float> values = encodeSummableHalfStep(input, state);
  ++state.step;
  return values;
}

namespace {

// The defaults' widened copy: the caller's scratch, else one kept per
// thread, so that a bucket's every call does not pay fresh pages.
std::span<const float> widenedScratch(HalfInput input) {
  std::span<float> wide = input.scratch;
  if (wide.size() != input.size()) {
    thread_local std::vector<float> scratch;
    if (scratch.size() < input.size()) scratch.resize(input.size());
    wide = std::span<float>(scratch.data(), input.size());
  }
  widenHalf(input.format, input.bytes.data(), wide);
  return wide;
}

}  // namespace

Packet Compressor::encodeHalfStep(HalfInput input, CompressorState& state) const {
  return encodeStep(widenedScratch(input), state);
}

std::vector<float> Compressor::encodeSummableHalfStep(HalfInput input,
                                                      CompressorState& state) const {
  return encodeSummableStep(widenedScratch(input), state);
}

void Compressor::aggregateCustom(Transport& transport, std::span<float> gradient,
                                 CompressorState& state, const ProtocolOptions& protocol) const {
  aggregateCustomStep(transport, gradient, state, protocol);
  ++state.step;
}

void Compressor::expandSummed(std::span<const float> summed, const CompressorState& state,
                              std::span<float> output) const {
  TETRAD_CHECK(state.step > 0, InvalidArgument,
               "compressor '{}': expandSummed of {} values before any step (rank {}); call "
               "encodeSummable first",
               spec(), summed.size(), state.rank);
  expandSummedStep(summed, state, state.step - 1, output);
}

std::vector<float> Compressor::errorFeedbackResidual(const CompressorState& state) const {
  auto it = state.buffers.find(kResidualBuffer);
  return it == state.buffers.end() ? std::vector<float>() : it->second;
}

void Compressor::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                     CompressorState& state,
                                     const ProtocolOptions& protocol) const {
  TETRAD_FAIL(Unsupported,
              "compressor '{}' (aggregation {}) has no custom aggregation protocol (rank {}, {} "
              "elements)",
              spec(), aggregationName(aggregation()), transport.rank(), gradient.size());
}

}  // namespace tetrad
