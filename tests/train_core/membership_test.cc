// --membership events (train/membership.h): leaves and joins at iterations
// or simulated seconds; bad events are refused naming them.
#include "tetrad/train/membership.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

TEST(Membership, LeavesAndJoinsAtIterationsAndSeconds) {
  const auto events = parseMembership("leave:3@120,join@300,leave@450.5s");
  ASSERT_EQ(events.size(), 3u);
  EXPECT_FALSE(events[0].join);
  EXPECT_EQ(events[0].count, 3);
  EXPECT_EQ(events[0].iteration, 120);
  EXPECT_TRUE(events[1].join);
  EXPECT_EQ(events[1].count, 1);
  EXPECT_EQ(events[1].iteration, 300);
  EXPECT_EQ(events[2].iteration, 0);
  EXPECT_DOUBLE_EQ(events[2].seconds, 450.5);
  EXPECT_EQ(events[2].text, "leave@450.5s");
}

TEST(Membership, BadEventsAreNamed) {
  auto expectRefused = [](const std::string& text, const std::string& part) {
    try {
      parseMembership(text);
      ADD_FAILURE() << text << " accepted";
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  expectRefused("leave", "'leave': leave[:K]@ITERATION");
  expectRefused("quit@3", "'quit' is neither leave nor join");
  expectRefused("leave:0@3", "worker count '0'");
  expectRefused("leave@x", "iteration 'x'");
  expectRefused("join@-2s", "not a time > 0 s");
  expectRefused("leave@50,join@40", "'join@40' comes before 'leave@50'");
  expectRefused("leave@5,,join@9", "an empty event");
  expectRefused("", "no event");
}

}  // namespace
}  // namespace tetrad::train
