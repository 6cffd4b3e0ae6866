#include "tetrad/train/membership.h"

#include <sstream>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

MembershipEvent parseEvent(const std::string& text) {
  MembershipEvent e;
  e.text = text;
  const size_t at = text.find('@');
  TETRAD_CHECK(at != std::string::npos, InvalidArgument,
               "invalid --membership event '{}': leave[:K]@ITERATION, join[:K]@ITERATION or "
               "...@SECONDSs",
               text);
  const std::string what = text.substr(0, at), when = text.substr(at + 1);
  const size_t colon = what.find(':');
  const std::string kind = what.substr(0, colon);
  TETRAD_CHECK(kind == "leave" || kind == "join", InvalidArgument,
               "invalid --membership event '{}': '{}' is neither leave nor join", text, kind);
  e.join = kind == "join";
  auto whole = [&](const std::string& digits, const char* what) {
    size_t used = 0;
    long long value = 0;
    try {
      value = std::stoll(digits, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TETRAD_CHECK(!digits.empty() && used == digits.size() && value >= 1, InvalidArgument,
                 "invalid --membership event '{}': {} '{}' is not a whole number >= 1", text, what,
                 digits);
    return int64_t(value);
  };
  if (colon != std::string::npos) e.count = int(whole(what.substr(colon + 1), "worker count"));
  if (!when.empty() && when.back() == 's') {
    size_t used = 0;
    try {
      e.seconds = std::stod(when.substr(0, when.size() - 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    TETRAD_CHECK(used == when.size() - 1 && used > 0 && e.seconds > 0, InvalidArgument,
                 "invalid --membership event '{}': '{}' is not a time > 0 s", text, when);
  } else {
    e.iteration = whole(when, "iteration");
  }
  return e;
}

}  // namespace

std::vector<MembershipEvent> parseMembership(const std::string& text) {
  std::vector<MembershipEvent> events;
  std::istringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    TETRAD_CHECK(!item.empty(), InvalidArgument, "invalid --membership '{}': an empty event",
                 text);
    MembershipEvent e = parseEvent(item);
    if (!events.empty()) {
      const MembershipEvent& last = events.back();
      const bool ordered = (e.iteration > 0 && last.iteration > 0)
                               ? e.iteration > last.iteration
                               : (e.seconds > 0 && last.seconds > 0 ? e.seconds > last.seconds
                                                                    : true);
      TETRAD_CHECK(ordered, InvalidArgument,
                   "invalid --membership '{}': '{}' comes before '{}'; give events in order",
                   text, e.text, last.text);
    }
    events.push_back(e);
  }
  TETRAD_CHECK(!events.empty(), InvalidArgument, "invalid --membership '{}': no event", text);
  return events;
}

}  // namespace tetrad::train
