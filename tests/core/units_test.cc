#include "tetrad/core/units.h"

#include <gtest/gtest.h>

#include "tetrad/core/bytes.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

TEST(Units, ParsesSizes) {
  EXPECT_EQ(parseBytes("0"), 0u);
  EXPECT_EQ(parseBytes("4KB"), 4000u);
  EXPECT_EQ(parseBytes("4K"), 4096u);
  EXPECT_EQ(parseBytes("64MiB"), 64u * 1024 * 1024);
  EXPECT_EQ(parseBytes("1.5GB"), 1500000000u);
  EXPECT_THROW(parseBytes("-4KB"), InvalidArgument);
  EXPECT_THROW(parseBytes("4XB"), InvalidArgument);
  EXPECT_THROW(parseBytes("banana"), InvalidArgument);
}

TEST(Units, ParsesBandwidthAsBytesPerSecond) {
  EXPECT_DOUBLE_EQ(parseBandwidth("10Gbps"), 1.25e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("1GBps"), 1e9);
  EXPECT_DOUBLE_EQ(parseBandwidth("800Mbps"), 1e8);
  EXPECT_THROW(parseBandwidth("10"), InvalidArgument);
  EXPECT_THROW(parseBandwidth("0Gbps"), InvalidArgument);
  EXPECT_THROW(parseBandwidth("-1Gbps"), InvalidArgument);
}

TEST(Units, ParsesDurations) {
  EXPECT_DOUBLE_EQ(parseDuration("25us"), 25e-6);
  EXPECT_DOUBLE_EQ(parseDuration("1.5ms"), 1.5e-3);
  EXPECT_DOUBLE_EQ(parseDuration("2s"), 2.0);
  EXPECT_THROW(parseDuration("2"), InvalidArgument);
  EXPECT_THROW(parseDuration("-2s"), InvalidArgument);
}

TEST(Units, ErrorMessagesNameTheInput) {
  try {
    parseBandwidth("10Gbits");
    FAIL() << "expected InvalidArgument";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("10Gbits"), std::string::npos) << e.what();
  }
}

TEST(Units, ParsesIntegersStrictly) {
  EXPECT_EQ(parseInteger("42", "workers"), 42);
  EXPECT_THROW(parseInteger("4x", "workers"), InvalidArgument);
  EXPECT_THROW(parseInteger("", "workers"), InvalidArgument);
}

TEST(Bytes, ReaderNeverReadsPastTheEnd) {
  ByteBuffer buffer;
  ByteWriter writer(buffer);
  writer.put<uint32_t>(7);
  writer.put<uint16_t>(9);
  ByteReader reader(buffer);
  EXPECT_EQ(reader.get<uint32_t>("a"), 7u);
  EXPECT_THROW(reader.get<uint32_t>("b"), ProtocolError);
  EXPECT_EQ(reader.get<uint16_t>("c"), 9u);
  reader.expectEnd("packet");
  ByteReader again(buffer);
  EXPECT_THROW(again.getBytes(7, "payload"), ProtocolError);
  EXPECT_THROW(again.expectEnd("packet"), ProtocolError);
}

}  // namespace
}  // namespace tetrad
