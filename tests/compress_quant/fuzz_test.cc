// Deterministic fuzzing of every registered decoder (iterates
// registeredCompressors()): valid packets are accepted; random bytes,
// random payloads behind a valid header, bit flips, overwrites and every
// truncation are either accepted or rejected with ProtocolError — no other
// exception, no crash, no write outside the output. Trailing bytes, a wrong
// element count and a non-zero reserved field are always rejected.
#include <gtest/gtest.h>

#include <random>

#include "fuzz_common.h"
#include "quant_test_util.h"

namespace tetrad {
namespace {

using testing::decodeGuarded;

class DecoderFuzz : public ::testing::TestWithParam<std::string> {};

TEST_P(DecoderFuzz, HostilePacketsOnlyThrowProtocolError) {
  const std::string spec = GetParam();
  CompressorPtr c = makeCompressor(spec);
  std::mt19937_64 generator(std::hash<std::string>()(spec));
  auto randomByte = [&] { return static_cast<std::byte>(generator() & 0xff); };
  int rejected = 0;
  for (size_t n : {0, 1, 13, 64, 1000, 4097}) {
    CompressorState state = testing::fuzzState(spec, n);
    std::vector<float> x = testing::gaussian(n, n + 3);
    const ByteBuffer valid = c->encode(x, state).bytes;
    const std::string where = spec + " n=" + std::to_string(n);
    try {
      ASSERT_TRUE(decodeGuarded(*c, valid, n)) << where;

      // Always rejected: trailing bytes, another count, reserved != 0.
      ByteBuffer longer = valid;
      longer.push_back(std::byte{0});
      EXPECT_FALSE(decodeGuarded(*c, longer, n)) << where << ": trailing byte accepted";
      EXPECT_FALSE(decodeGuarded(*c, valid, n + 1)) << where << ": wrong count accepted";
      if (n > 0) {
        EXPECT_FALSE(decodeGuarded(*c, valid, n - 1)) << where;
      }
      ByteBuffer reserved = valid;
      reserved[5] = std::byte{1};
      EXPECT_FALSE(decodeGuarded(*c, reserved, n)) << where << ": reserved field accepted";

      // Truncations: every length for small packets, a sample otherwise.
      for (size_t len = 0; len < valid.size();
           len += valid.size() <= 600 ? 1 : 1 + generator() % 97) {
        rejected += !decodeGuarded(*c, ConstBytes(valid).first(len), n);
      }
      // Bit flips anywhere; byte overwrites in the header and parameters.
      for (int trial = 0; trial < 200 && !valid.empty(); ++trial) {
        ByteBuffer bad = valid;
        int flips = 1 + static_cast<int>(generator() % 3);
        for (int f = 0; f < flips; ++f) {
          bad[generator() % bad.size()] ^= static_cast<std::byte>(1u << (generator() % 8));
        }
        rejected += !decodeGuarded(*c, bad, n);
        ByteBuffer over = valid;
        over[generator() % std::min<size_t>(over.size(), 48)] = randomByte();
        rejected += !decodeGuarded(*c, over, n);
      }
      // Random payloads behind a valid header, and pure random bytes.
      for (int trial = 0; trial < 150; ++trial) {
        ByteBuffer bad(valid.begin(), valid.begin() + std::min<size_t>(valid.size(), 16));
        size_t extra = generator() % (2 * (valid.size() - bad.size()) + 64);
        for (size_t i = 0; i < extra; ++i) bad.push_back(randomByte());
        rejected += !decodeGuarded(*c, bad, n);
        ByteBuffer noise(generator() % 200);
        for (std::byte& b : noise) b = randomByte();
        rejected += !decodeGuarded(*c, noise, n);
      }
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << ": decoder threw something other than ProtocolError: " << e.what();
    }
  }
  EXPECT_GT(rejected, 0);
}

INSTANTIATE_TEST_SUITE_P(EveryRegisteredCompressor, DecoderFuzz,
                         ::testing::ValuesIn(testing::fuzzSpecs()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name;
                           for (char ch : info.param) name += std::isalnum(ch) ? ch : '_';
                           return name;
                         });

}  // namespace
}  // namespace tetrad
