// Chrome trace writer (timeline_json.h).
#include "tetrad/train/record/timeline_json.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr double kMicrosecondsPerSecond = 1e6;

nlohmann::json metadata(const char* what, int pid, int tid, const std::string& name) {
  return {{"name", what}, {"ph", "M"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}};
}

nlohmann::json traceOf(std::span<const TimelineEvent> events, const std::string& clock) {
  nlohmann::json trace = nlohmann::json::array();
  std::set<int> ranks;
  std::set<std::pair<int, TimelineTrack>> tracks;
  for (const TimelineEvent& e : events) {
    ranks.insert(e.rank);
    tracks.insert({e.rank, e.track});
  }
  for (int rank : ranks) {
    trace.push_back(metadata("process_name", rank, 0, fmt::format("rank {}", rank)));
  }
  for (const auto& [rank, track] : tracks) {
    trace.push_back(metadata("thread_name", rank, static_cast<int>(track), toString(track)));
  }
  for (const TimelineEvent& e : events) {
    nlohmann::json args = {{"iteration", e.iteration}};
    if (e.bytes != 0) args["bytes"] = e.bytes;
    if (e.bucket >= 0) args["bucket"] = e.bucket;
    trace.push_back({{"name", e.name},
                     {"cat", e.category},
                     {"ph", "X"},
                     {"ts", e.start * kMicrosecondsPerSecond},
                     {"dur", (e.end - e.start) * kMicrosecondsPerSecond},
                     {"pid", e.rank},
                     {"tid", static_cast<int>(e.track)},
                     {"args", std::move(args)}});
  }
  return {{"traceEvents", std::move(trace)},
          {"displayTimeUnit", "ms"},
          {"otherData",
           {{"clock", clock},
            {"producer", "tetrad"},
            {"ranks", ranks.size()},
            {"events", events.size()}}}};
}

}  // namespace

void writeChromeTrace(const std::string& path, std::span<const TimelineEvent> events,
                      const std::string& clock) {
  TETRAD_CHECK(clock == "simulated" || clock == "wall", InvalidArgument,
               "timeline: clock '{}' is neither 'simulated' nor 'wall'", clock);
  const std::string text = traceOf(events, clock).dump() + "\n";
  const std::string temporary = path + ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    TETRAD_CHECK(out.is_open(), InvalidArgument, "timeline: cannot write '{}': {}", temporary,
                 std::strerror(errno));
    out << text;
    out.close();
    if (!out) {
      std::error_code ignored;
      std::filesystem::remove(temporary, ignored);
      TETRAD_FAIL(InvalidArgument, "timeline: writing '{}' failed", temporary);
    }
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    TETRAD_FAIL(InvalidArgument, "timeline: cannot rename '{}' to '{}': {}", temporary, path,
                error.message());
  }
}

}  // namespace tetrad::train
