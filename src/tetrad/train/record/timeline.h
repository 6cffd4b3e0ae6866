// Timeline: a per-rank recorder of what a worker did and when (forward and
// backward per layer, encode/decode, each bucket's communication, waits,
// server work), collected at rank 0 and written as a Chrome trace
// (timeline_json.h).
//
// An event is an interval [start, end] in seconds of the engine's clock
// (Transport::now(): simulated under SimGrid, wall under MPI) on one track
// of its rank: compute (the worker), communication (the scheduler's
// communication task) or server (a colocated parameter-server shard).
//
// Bounding: a long run keeps every event of the first `headIterations`
// iterations and of the last `tailIterations` iterations seen so far;
// when an event of a newer iteration arrives and the tail is full, the
// events of its oldest iteration are dropped (droppedEvents() counts them).
// Events outside the training iterations (iteration < 0: evaluation, set-up)
// are kept up to the latest `otherEvents` of them. Memory is therefore
// bounded by (head + tail) iterations plus `otherEvents` events.
//
// Ownership and threads: one Timeline per rank, owned by its worker. add()
// may be called concurrently from the worker and from its communication or
// server tasks (std::threads under MPI). Under SimGrid the rank's actors
// share one OS thread; add() holds its lock without calling the engine, so
// an actor never yields while holding it.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad::train {

struct TimelineOptions {
  bool enabled = true;
  int64_t headIterations = 10;  // keep every event of iterations [0, head)
  int64_t tailIterations = 10;  // and of the last `tail` iterations seen
  int64_t otherEvents = 1000;   // the latest events with iteration < 0
};

// One track (a Chrome-trace thread) each per rank; the value is its tid.
enum class TimelineTrack { kCompute = 0, kCommunication = 1, kServer = 2 };

// "compute", "communication", "server".
std::string toString(TimelineTrack track);

struct TimelineEvent {
  int rank = 0;
  TimelineTrack track = TimelineTrack::kCompute;
  std::string name;      // "forward fc1", "backward conv2", "bucket 3", "encode", "wait"
  std::string category;  // "forward", "backward", "optimizer", "comm", "encode", ...
  double start = 0;      // seconds on the engine's clock
  double end = 0;
  int64_t iteration = 0;  // -1: outside the training iterations (evaluation)
  uint64_t bytes = 0;     // optional: bytes sent (0: none)
  int64_t bucket = -1;    // optional: bucket index (-1: none)
};

class Timeline {
 public:
  // Throws InvalidArgument on a negative option.
  Timeline(int rank, TimelineOptions options);

  int rank() const { return rank_; }
  bool enabled() const { return options_.enabled; }
  const TimelineOptions& options() const { return options_; }

  // Records one event (a no-op when disabled). Throws InvalidArgument when
  // end < start or either is not finite. Thread-safe.
  void add(TimelineTrack track, std::string_view name, std::string_view category, double start,
           double end, int64_t iteration, uint64_t bytes = 0, int64_t bucket = -1);

  // The kept events, sorted by (track, start, end).
  std::vector<TimelineEvent> events() const;
  // Events recorded and then dropped by the bounding.
  int64_t droppedEvents() const;

 private:
  void keep(TimelineEvent event);

  const int rank_;
  const TimelineOptions options_;
  mutable std::mutex mutex_;
  std::vector<TimelineEvent> head_;                     // iterations [0, head)
  std::map<int64_t, std::vector<TimelineEvent>> tail_;  // at most `tail` iterations
  std::deque<TimelineEvent> other_;                     // iteration < 0
  int64_t dropped_ = 0;
};

// Tags one gatherTimeline() call uses, from its `tag` (reserve them from the
// launch's TagSpace).
constexpr Tag kTimelineTagSpan = 1;

// A collective over `world` (every rank calls it, with the same tag): rank 0
// returns every rank's kept events, in rank order (each rank's sorted as
// events() sorts them); the other ranks return an empty vector. Each rank
// sends its events to rank 0 as one message: (p-1)·α + n·β at rank 0 for n
// bytes of events in all. `mine.rank()` must be world.rank(). Throws
// Unsupported in the simulator's payload-free mode (the events are data),
// ProtocolError on a malformed message, the transport's errors otherwise.
std::vector<TimelineEvent> gatherTimeline(Transport& world, const Timeline& mine, Tag tag);

// Test helpers (also for the trainer's tests).
// Throws InvalidArgument naming the first two events of one (rank, track)
// that overlap (ordered by start); events that only touch
// (next.start == previous.end) do not overlap.
void checkTracksDoNotOverlap(std::span<const TimelineEvent> events);
// Σ (end - start) over the events of `category`.
double totalSeconds(std::span<const TimelineEvent> events, std::string_view category);

}  // namespace tetrad::train
