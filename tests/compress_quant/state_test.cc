// CompressorState: buffers, checkpoint round trip, and hostile bytes.
#include <gtest/gtest.h>

#include <random>

#include "quant_test_util.h"
#include "tetrad/compress/compressor.h"

namespace tetrad {
namespace {

CompressorState sampleState() {
  CompressorState state;
  state.shape = {4, 3, 2};
  state.seed = 0x1234567890abcdefull;
  state.rank = 7;
  state.step = 99;
  state.buffer("residual", 24)[5] = 1.5f;
  state.buffer("q", 6)[0] = -2.0f;
  state.buffer("empty", 0);
  return state;
}

void expectEqual(const CompressorState& a, const CompressorState& b) {
  EXPECT_EQ(a.shape, b.shape);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.step, b.step);
  EXPECT_EQ(a.buffers, b.buffers);
}

TEST(CompressorState, BufferIsZeroFilledAndResized) {
  CompressorState state;
  std::vector<float>& r = state.buffer("residual", 4);
  EXPECT_EQ(r, std::vector<float>(4, 0.0f));
  r[1] = 3;
  EXPECT_EQ(state.buffer("residual", 4)[1], 3.0f);
  EXPECT_EQ(state.buffer("residual", 6).size(), 6u);
}

TEST(CompressorState, SerializeRoundTrip) {
  CompressorState state = sampleState();
  expectEqual(CompressorState::deserialize(state.serialize()), state);
  expectEqual(CompressorState::deserialize(CompressorState().serialize()), CompressorState());
}

TEST(CompressorState, ResumedStateContinuesIdentically) {
  // Checkpoint a stochastic, error-feedback compressor mid-run; the resumed
  // copy produces the same packets.
  // efsign and onebit keep p and a pending correction (onebit.h), which must
  // travel with the checkpoint too.
  for (const char* spec : {"qsgd:4,ef", "efsign", "onebit", "onebit:col"}) {
    CompressorPtr c = makeCompressor(spec);
    CompressorState state;
    state.seed = 11;
    state.shape = {50, 10};
    std::vector<float> x = testing::gaussian(500, 1);
    for (int t = 0; t < 3; ++t) c->encode(x, state);
    CompressorState resumed = CompressorState::deserialize(state.serialize());
    for (int t = 0; t < 3; ++t) {
      EXPECT_EQ(c->encode(x, state).bytes, c->encode(x, resumed).bytes) << spec;
    }
  }
}

TEST(CompressorState, EveryTruncationIsAProtocolError) {
  ByteBuffer bytes = sampleState().serialize();
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_THROW(CompressorState::deserialize(ConstBytes(bytes).first(n)), ProtocolError) << n;
  }
  bytes.push_back(std::byte{0});
  EXPECT_THROW(CompressorState::deserialize(bytes), ProtocolError);
}

TEST(CompressorState, HostileBytesNeverCrash) {
  ByteBuffer good = sampleState().serialize();
  std::mt19937 generator(17);
  int accepted = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    ByteBuffer bytes = good;
    int flips = 1 + static_cast<int>(generator() % 4);
    for (int f = 0; f < flips; ++f) {
      bytes[generator() % bytes.size()] ^= static_cast<std::byte>(1u << (generator() % 8));
    }
    try {
      CompressorState::deserialize(bytes);
      ++accepted;  // e.g. a flipped bit inside a float
    } catch (const ProtocolError&) {
    }
  }
  EXPECT_GT(accepted, 0);
  // A buffer that claims 2^60 floats must be refused before allocating.
  ByteBuffer huge = CompressorState().serialize();
  huge.resize(huge.size() - 4);  // drop the buffer count
  ByteWriter writer(huge);
  writer.put<uint32_t>(1);
  writer.put<uint32_t>(1);
  writer.put<char>('r');
  writer.put<uint64_t>(uint64_t{1} << 60);
  EXPECT_THROW(CompressorState::deserialize(huge), ProtocolError);
}

TEST(PacketHeader, ValidatesEveryField) {
  ByteBuffer bytes;
  ByteWriter writer(bytes);
  writePacketHeader(writer, PacketKind::kQsgd, 1234, 5);
  ASSERT_EQ(bytes.size(), kPacketHeaderBytes);
  {
    ByteReader reader(bytes);
    PacketHeader header = readPacketHeader(reader, PacketKind::kQsgd, 1234);
    EXPECT_EQ(header.flags, 5);
    EXPECT_EQ(header.count, 1234u);
  }
  auto expectBad = [&](size_t offset, std::byte value, PacketKind kind, uint64_t count) {
    ByteBuffer bad = bytes;
    bad[offset] = value;
    ByteReader reader(bad);
    EXPECT_THROW(readPacketHeader(reader, kind, count), ProtocolError) << offset;
  };
  expectBad(0, std::byte{9}, PacketKind::kQsgd, 1234);  // kind
  // version: QSGD's packets are version 2 (a norm per bucket); 1 and 3 are refused
  EXPECT_EQ(bytes[1], std::byte{packetVersion(PacketKind::kQsgd)});
  EXPECT_EQ(packetVersion(PacketKind::kQsgd), 2);
  expectBad(1, std::byte{1}, PacketKind::kQsgd, 1234);
  expectBad(1, std::byte{3}, PacketKind::kQsgd, 1234);
  expectBad(4, std::byte{1}, PacketKind::kQsgd, 1234);  // reserved
  expectBad(7, std::byte{1}, PacketKind::kQsgd, 1234);  // reserved
  expectBad(8, std::byte{0}, PacketKind::kQsgd, 1234);  // count
  ByteReader shortReader(ConstBytes(bytes).first(15));
  EXPECT_THROW(readPacketHeader(shortReader, PacketKind::kQsgd, 1234), ProtocolError);
}

}  // namespace
}  // namespace tetrad
