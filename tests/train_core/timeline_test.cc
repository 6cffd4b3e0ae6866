// The timeline recorder (bounding, concurrent add(), gather at rank 0 over a
// simulated world) and its Chrome-trace writer (JSON parsed back, atomic
// write), with the overlap and total helpers.
#include "tetrad/train/record/timeline.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/record/timeline_json.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

// A fresh, empty folder for one test.
fs::path freshFolder(const std::string& name) {
  const fs::path folder = fs::path(::testing::TempDir()) / ("tetrad_timeline_" + name);
  fs::remove_all(folder);
  fs::create_directories(folder);
  return folder;
}

std::vector<std::string> filesIn(const fs::path& folder) {
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);  // throws on invalid JSON
}

// Two events (forward, backward) per iteration, one second apart.
void addIterations(Timeline& timeline, int64_t first, int64_t last) {
  for (int64_t i = first; i <= last; ++i) {
    const double t = static_cast<double>(i);
    timeline.add(TimelineTrack::kCompute, "forward", "forward", t, t + 0.25, i);
    timeline.add(TimelineTrack::kCompute, "backward", "backward", t + 0.25, t + 0.75, i);
  }
}

std::map<int64_t, int> eventsPerIteration(const Timeline& timeline) {
  std::map<int64_t, int> counts;
  for (const TimelineEvent& e : timeline.events()) ++counts[e.iteration];
  return counts;
}

TEST(Timeline, KeepsTheFirstAndLastIterations) {
  Timeline timeline(0, TimelineOptions{.headIterations = 2, .tailIterations = 3});
  addIterations(timeline, 0, 9);
  EXPECT_EQ(eventsPerIteration(timeline),
            (std::map<int64_t, int>{{0, 2}, {1, 2}, {7, 2}, {8, 2}, {9, 2}}));
  EXPECT_EQ(timeline.droppedEvents(), 10);
  // A late event of an iteration older than the tail is dropped; one of a
  // kept tail iteration (a communication task finishing late) is kept.
  timeline.add(TimelineTrack::kCommunication, "bucket 0", "comm", 3.5, 3.6, 3);
  timeline.add(TimelineTrack::kCommunication, "bucket 0", "comm", 7.5, 7.6, 7, 4096, 0);
  EXPECT_EQ(timeline.droppedEvents(), 11);
  EXPECT_EQ(eventsPerIteration(timeline)[7], 3);
  // A newer iteration evicts the oldest of the tail (7, three events).
  addIterations(timeline, 10, 10);
  EXPECT_EQ(eventsPerIteration(timeline),
            (std::map<int64_t, int>{{0, 2}, {1, 2}, {8, 2}, {9, 2}, {10, 2}}));
  EXPECT_EQ(timeline.droppedEvents(), 14);
}

TEST(Timeline, KeepsTheLatestEventsOutsideIterations) {
  Timeline timeline(0, TimelineOptions{.headIterations = 0, .tailIterations = 0, .otherEvents = 2});
  addIterations(timeline, 0, 4);
  for (int k = 0; k < 3; ++k) {
    timeline.add(TimelineTrack::kCompute, "eval " + std::to_string(k), "eval", k, k + 0.5, -1);
  }
  const std::vector<TimelineEvent> events = timeline.events();
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].name, "eval 1");
  EXPECT_EQ(events[1].name, "eval 2");
  EXPECT_EQ(timeline.droppedEvents(), 10 + 1);
}

TEST(Timeline, EventsAreSortedByTrackThenStart) {
  Timeline timeline(5, TimelineOptions{});
  timeline.add(TimelineTrack::kCommunication, "bucket 1", "comm", 2.0, 3.0, 0, 800, 1);
  timeline.add(TimelineTrack::kCompute, "backward", "backward", 1.0, 2.0, 0);
  timeline.add(TimelineTrack::kCommunication, "bucket 0", "comm", 1.5, 2.0, 0, 400, 0);
  timeline.add(TimelineTrack::kCompute, "forward", "forward", 0.0, 1.0, 0);
  const std::vector<TimelineEvent> events = timeline.events();
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].name, "forward");
  EXPECT_EQ(events[1].name, "backward");
  EXPECT_EQ(events[2].name, "bucket 0");
  EXPECT_EQ(events[3].name, "bucket 1");
  EXPECT_EQ(events[3].rank, 5);
  EXPECT_EQ(events[3].bytes, 800u);
  EXPECT_EQ(events[3].bucket, 1);
  EXPECT_EQ(events[0].bucket, -1);
}

TEST(Timeline, DisabledRecordsNothing) {
  Timeline timeline(0, TimelineOptions{.enabled = false});
  EXPECT_FALSE(timeline.enabled());
  addIterations(timeline, 0, 30);
  EXPECT_TRUE(timeline.events().empty());
  EXPECT_EQ(timeline.droppedEvents(), 0);
}

TEST(Timeline, RejectsBadIntervalsAndOptions) {
  Timeline timeline(0, TimelineOptions{});
  EXPECT_THROW(timeline.add(TimelineTrack::kCompute, "x", "forward", 2.0, 1.0, 0), InvalidArgument);
  EXPECT_THROW(timeline.add(TimelineTrack::kCompute, "x", "forward", NAN, 1.0, 0), InvalidArgument);
  EXPECT_TRUE(timeline.events().empty());
  EXPECT_THROW(Timeline(0, TimelineOptions{.tailIterations = -1}), InvalidArgument);
}

TEST(Timeline, AddIsThreadSafe) {
  constexpr int kPerThread = 20000;
  Timeline all(0, TimelineOptions{.headIterations = kPerThread});
  Timeline bounded(0, TimelineOptions{.headIterations = 5, .tailIterations = 7});
  auto record = [&](TimelineTrack track) {
    for (int i = 0; i < kPerThread; ++i) {
      const double t = i;
      all.add(track, "e", "comm", t, t + 1, i, static_cast<uint64_t>(i));
      bounded.add(track, "e", "comm", t, t + 1, i);
    }
  };
  std::thread worker(record, TimelineTrack::kCompute);
  std::thread comm(record, TimelineTrack::kCommunication);
  worker.join();
  comm.join();
  const std::vector<TimelineEvent> events = all.events();
  ASSERT_EQ(events.size(), 2u * kPerThread);
  EXPECT_EQ(all.droppedEvents(), 0);
  // Each track holds its thread's events, in order, none lost or torn.
  for (int track = 0; track < 2; ++track) {
    for (int i = 0; i < kPerThread; ++i) {
      const TimelineEvent& e = events[static_cast<size_t>(track * kPerThread + i)];
      ASSERT_EQ(static_cast<int>(e.track), track);
      ASSERT_EQ(e.iteration, i);
      ASSERT_EQ(e.bytes, static_cast<uint64_t>(i));
    }
  }
  const int64_t kept = static_cast<int64_t>(bounded.events().size());
  EXPECT_EQ(kept + bounded.droppedEvents(), 2 * kPerThread);
  EXPECT_LE(kept, 2 * (5 + 7));
  EXPECT_GE(kept, 2 * 5);
}

// Every rank records compute and communication events on the simulated
// clock; rank 0 gathers them all.
TEST(Timeline, GathersEveryRanksEventsAtRankZero) {
  constexpr int kRanks = 4;
  constexpr Tag kTag = 700;
  LaunchOptions options;
  options.cluster = "sim:4x10Gbps,25us";
  options.timeoutSeconds = 60;
  std::vector<TimelineEvent> gathered;
  std::vector<size_t> sizes(kRanks, 99);
  launch(options, [&](Transport& world) {
    const int rank = world.rank();
    Timeline timeline(rank, TimelineOptions{});
    for (int64_t i = 0; i < 3 + rank; ++i) {
      const double start = world.now();
      world.compute(0.001 * (rank + 1));
      timeline.add(TimelineTrack::kCompute, "backward r" + std::to_string(rank), "backward", start,
                   world.now(), i);
      timeline.add(TimelineTrack::kCommunication, "bucket " + std::to_string(i), "comm",
                   world.now(), world.now() + 0.0005, i, 1000u * static_cast<uint64_t>(rank), i);
    }
    std::vector<TimelineEvent> result = gatherTimeline(world, timeline, kTag);
    sizes[rank] = result.size();
    if (rank == 0) gathered = std::move(result);
  });
  // Rank r recorded 2·(3 + r) events.
  EXPECT_EQ(sizes, (std::vector<size_t>{6 + 8 + 10 + 12, 0, 0, 0}));
  std::vector<int> perRank(kRanks, 0);
  int previousRank = 0;
  for (const TimelineEvent& e : gathered) {
    ASSERT_GE(e.rank, previousRank) << "not in rank order";
    previousRank = e.rank;
    ++perRank[e.rank];
    if (e.track == TimelineTrack::kCompute) {
      EXPECT_EQ(e.name, "backward r" + std::to_string(e.rank));
      EXPECT_NEAR(e.end - e.start, 0.001 * (e.rank + 1), 1e-12);
    } else {
      EXPECT_EQ(e.name, "bucket " + std::to_string(e.iteration));
      EXPECT_EQ(e.bytes, 1000u * static_cast<uint64_t>(e.rank));
      EXPECT_EQ(e.bucket, e.iteration);
      EXPECT_EQ(e.category, "comm");
    }
  }
  EXPECT_EQ(perRank, (std::vector<int>{6, 8, 10, 12}));
  EXPECT_NO_THROW(checkTracksDoNotOverlap(gathered));
  EXPECT_NEAR(totalSeconds(gathered, "backward"), 0.001 * (1 * 3 + 2 * 4 + 3 * 5 + 4 * 6), 1e-9);

  const fs::path folder = freshFolder("gather");
  writeChromeTrace((folder / "timeline.json").string(), gathered, "simulated");
  const nlohmann::json trace = readJson(folder / "timeline.json");
  // 36 events, 4 process names, 8 thread names.
  EXPECT_EQ(trace["traceEvents"].size(), 36u + 4u + 8u);
  EXPECT_EQ(trace["otherData"]["ranks"], 4);
}

TEST(Timeline, GatherRefusesPayloadFreeWorldsForeignTimelinesAndJunk) {
  LaunchOptions options;
  options.cluster = "sim:2x10Gbps,25us";
  options.timeoutSeconds = 10;
  options.payloadFree = true;
  EXPECT_THROW(launch(options,
                      [](Transport& world) {
                        Timeline timeline(world.rank(), TimelineOptions{});
                        gatherTimeline(world, timeline, 700);
                      }),
               Unsupported);
  options.payloadFree = false;
  // A message that is not a timeline: rank 0 names the sender.
  try {
    launch(options, [](Transport& world) {
      if (world.rank() == 1) {
        const std::byte junk[3] = {};
        world.send(0, 700, junk);
        return;
      }
      gatherTimeline(world, Timeline(0, TimelineOptions{}), 700);
    });
    FAIL() << "a malformed timeline was accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("from rank 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW(launch(options,
                      [](Transport& world) {
                        Timeline timeline(1 - world.rank(), TimelineOptions{});
                        gatherTimeline(world, timeline, 700);
                      }),
               InvalidArgument);
}

std::vector<TimelineEvent> twoRankEvents() {
  Timeline zero(0, TimelineOptions{});
  zero.add(TimelineTrack::kCompute, "forward fc1", "forward", 0.001, 0.0025, 0);
  zero.add(TimelineTrack::kCommunication, "bucket 3", "comm", 0.002, 0.004, 0, 4096, 3);
  Timeline one(1, TimelineOptions{});
  one.add(TimelineTrack::kServer, "shard 0", "server", 0.5, 0.75, 1, 128);
  std::vector<TimelineEvent> events = zero.events();
  for (const TimelineEvent& e : one.events()) events.push_back(e);
  return events;
}

TEST(ChromeTrace, IsValidJsonInMicroseconds) {
  const fs::path folder = freshFolder("json");
  const fs::path path = folder / "timeline.json";
  writeChromeTrace(path.string(), twoRankEvents(), "wall");
  const nlohmann::json trace = readJson(path);
  EXPECT_EQ(trace["displayTimeUnit"], "ms");
  EXPECT_EQ(trace["otherData"]["clock"], "wall");
  EXPECT_EQ(trace["otherData"]["events"], 3);
  const nlohmann::json& events = trace["traceEvents"];
  ASSERT_TRUE(events.is_array());
  // 3 complete events, 2 process names, 3 thread names.
  ASSERT_EQ(events.size(), 3u + 2u + 3u);
  std::map<std::string, nlohmann::json> complete;
  std::map<std::pair<int, int>, std::string> threadNames;
  std::map<int, std::string> processNames;
  for (const nlohmann::json& e : events) {
    if (e["ph"] == "X") {
      complete[e["name"]] = e;
    } else {
      ASSERT_EQ(e["ph"], "M");
      if (e["name"] == "process_name") processNames[e["pid"]] = e["args"]["name"];
      if (e["name"] == "thread_name") threadNames[{e["pid"], e["tid"]}] = e["args"]["name"];
    }
  }
  EXPECT_EQ(processNames, (std::map<int, std::string>{{0, "rank 0"}, {1, "rank 1"}}));
  EXPECT_EQ(threadNames, (std::map<std::pair<int, int>, std::string>{
                             {{0, 0}, "compute"}, {{0, 1}, "communication"}, {{1, 2}, "server"}}));
  ASSERT_EQ(complete.size(), 3u);
  const nlohmann::json& forward = complete["forward fc1"];
  EXPECT_EQ(forward["cat"], "forward");
  EXPECT_NEAR(forward["ts"].get<double>(), 1000.0, 1e-9);
  EXPECT_NEAR(forward["dur"].get<double>(), 1500.0, 1e-9);
  EXPECT_EQ(forward["pid"], 0);
  EXPECT_EQ(forward["tid"], 0);
  EXPECT_EQ(forward["args"], (nlohmann::json{{"iteration", 0}}));
  const nlohmann::json& bucket = complete["bucket 3"];
  EXPECT_EQ(bucket["tid"], 1);
  EXPECT_EQ(bucket["args"], (nlohmann::json{{"iteration", 0}, {"bytes", 4096}, {"bucket", 3}}));
  const nlohmann::json& shard = complete["shard 0"];
  EXPECT_EQ(shard["pid"], 1);
  EXPECT_EQ(shard["tid"], 2);
  EXPECT_NEAR(shard["ts"].get<double>(), 500000.0, 1e-6);
  EXPECT_NEAR(shard["dur"].get<double>(), 250000.0, 1e-6);
  EXPECT_EQ(shard["args"], (nlohmann::json{{"iteration", 1}, {"bytes", 128}}));
}

TEST(ChromeTrace, WritesAtomically) {
  const fs::path folder = freshFolder("atomic");
  const fs::path path = folder / "timeline.json";
  writeChromeTrace(path.string(), twoRankEvents(), "simulated");
  EXPECT_EQ(filesIn(folder), std::vector<std::string>{"timeline.json"});
  // Replacing an existing trace leaves only the new one.
  writeChromeTrace(path.string(), {}, "simulated");
  EXPECT_EQ(filesIn(folder), std::vector<std::string>{"timeline.json"});
  EXPECT_EQ(readJson(path)["traceEvents"].size(), 0u);
  // An unwritable path or an unknown clock: an error, no file.
  EXPECT_THROW(writeChromeTrace((folder / "missing" / "timeline.json").string(), {}, "wall"),
               InvalidArgument);
  EXPECT_THROW(writeChromeTrace((folder / "other.json").string(), {}, "cpu"), InvalidArgument);
  EXPECT_EQ(filesIn(folder), std::vector<std::string>{"timeline.json"});
}

TEST(TimelineChecks, OverlapIsCaughtTouchingIsNot) {
  std::vector<TimelineEvent> events = twoRankEvents();
  // Compute and communication of rank 0 overlap each other: different tracks.
  EXPECT_NO_THROW(checkTracksDoNotOverlap(events));
  // Touching: starts exactly where the forward ends.
  events.push_back(
      {.rank = 0, .name = "backward fc1", .category = "backward", .start = 0.0025, .end = 0.003});
  EXPECT_NO_THROW(checkTracksDoNotOverlap(events));
  // The same interval on another rank does not overlap either.
  events.push_back(
      {.rank = 1, .name = "forward fc1", .category = "forward", .start = 0.001, .end = 0.0025});
  EXPECT_NO_THROW(checkTracksDoNotOverlap(events));
  // Nested inside the backward on rank 0's compute track.
  events.push_back(
      {.rank = 0, .name = "optimizer", .category = "optimizer", .start = 0.0026, .end = 0.0027});
  try {
    checkTracksDoNotOverlap(events);
    FAIL() << "overlap not caught";
  } catch (const InvalidArgument& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("rank 0, track compute"), std::string::npos) << message;
    EXPECT_NE(message.find("'backward fc1'"), std::string::npos) << message;
    EXPECT_NE(message.find("'optimizer'"), std::string::npos) << message;
  }
}

TEST(TimelineChecks, TotalSecondsSumsOneCategory) {
  const std::vector<TimelineEvent> events = twoRankEvents();
  EXPECT_NEAR(totalSeconds(events, "comm"), 0.002, 1e-15);
  EXPECT_NEAR(totalSeconds(events, "forward"), 0.0015, 1e-15);
  EXPECT_EQ(totalSeconds(events, "eval"), 0.0);
}

}  // namespace
}  // namespace tetrad::train
