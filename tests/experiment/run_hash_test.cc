// FNV-1a hashing of run configurations (src/tetrad/experiment/run_hash.h).
#include "tetrad/experiment/run_hash.h"

#include <gtest/gtest.h>

namespace tetrad::experiment {
namespace {

TEST(RunHash, Fnv1aMatchesPublishedVectors) {
  // Test vectors of the FNV reference (Fowler, Noll, Vo).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(RunHash, HexHasSixteenDigits) {
  EXPECT_EQ(toHex64(0), "0000000000000000");
  EXPECT_EQ(toHex64(0xaf63dc4c8601ec8cULL), "af63dc4c8601ec8c");
}

TEST(RunHash, ArgumentBoundariesMatter) {
  EXPECT_NE(hashArguments({"ab"}), hashArguments({"a", "b"}));
  EXPECT_NE(hashArguments({"--lr", "0.1"}), hashArguments({"--lr", "0.10"}));
  EXPECT_NE(hashArguments({"--lr", "0.1", "--seed", "1"}),
            hashArguments({"--seed", "1", "--lr", "0.1"}));
  EXPECT_EQ(hashArguments({"--lr", "0.1"}), hashArguments({"--lr", "0.1"}));
  // Each argument is followed by a NUL byte.
  EXPECT_EQ(hashArguments({"a"}), toHex64(fnv1a64(std::string("a\0", 2))));
  EXPECT_EQ(hashArguments({}), toHex64(fnv1a64("")));
}

}  // namespace
}  // namespace tetrad::experiment
