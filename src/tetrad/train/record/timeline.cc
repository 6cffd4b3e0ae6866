// Timeline recorder, its gather at rank 0 and the test helpers (timeline.h).
//
// Gather cost: every rank r > 0 sends one message of n_r bytes to rank 0,
// which receives them in rank order: T = (p-1)·α + Σ_r n_r·β at rank 0.
// Wire format of one rank's events (little-endian, parsed with ByteReader):
//   u64 count, then per event: u8 track, u32 |name|, name, u32 |category|,
//   category, f64 start, f64 end, i64 iteration, u64 bytes, i64 bucket.
// The rank is the message's source, not a field.
#include "tetrad/train/record/timeline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <tuple>

#include "tetrad/core/bytes.h"
#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

// track + two lengths + five 8-byte fields: the smallest encoded event.
constexpr size_t kMinEventBytes = 1 + 4 + 4 + 5 * 8;

bool byTrackThenTime(const TimelineEvent& a, const TimelineEvent& b) {
  return std::tie(a.track, a.start, a.end) < std::tie(b.track, b.start, b.end);
}

void putString(ByteWriter& out, const std::string& text) {
  out.put(static_cast<uint32_t>(text.size()));
  out.putBytes(std::as_bytes(std::span(text.data(), text.size())));
}

std::string getString(ByteReader& in, std::string_view what) {
  const auto size = in.get<uint32_t>(what);
  ConstBytes bytes = in.getBytes(size, what);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

ByteBuffer encodeEvents(std::span<const TimelineEvent> events) {
  ByteBuffer buffer;
  ByteWriter out(buffer);
  out.put(static_cast<uint64_t>(events.size()));
  for (const TimelineEvent& e : events) {
    out.put(static_cast<uint8_t>(e.track));
    putString(out, e.name);
    putString(out, e.category);
    out.put(e.start);
    out.put(e.end);
    out.put(e.iteration);
    out.put(e.bytes);
    out.put(e.bucket);
  }
  return buffer;
}

void decodeEvents(ConstBytes bytes, int rank, std::vector<TimelineEvent>& out) {
  ByteReader in(bytes);
  const auto count = in.get<uint64_t>("timeline event count");
  TETRAD_CHECK(count <= in.remaining() / kMinEventBytes, ProtocolError,
               "timeline of rank {}: {} events cannot fit in {} bytes", rank, count,
               in.remaining());
  for (uint64_t i = 0; i < count; ++i) {
    TimelineEvent e;
    e.rank = rank;
    const auto track = in.get<uint8_t>("timeline track");
    TETRAD_CHECK(track <= static_cast<uint8_t>(TimelineTrack::kServer), ProtocolError,
                 "timeline of rank {}: event {} has unknown track {}", rank, i, track);
    e.track = static_cast<TimelineTrack>(track);
    e.name = getString(in, "timeline event name");
    e.category = getString(in, "timeline event category");
    e.start = in.get<double>("timeline event start");
    e.end = in.get<double>("timeline event end");
    e.iteration = in.get<int64_t>("timeline event iteration");
    e.bytes = in.get<uint64_t>("timeline event bytes");
    e.bucket = in.get<int64_t>("timeline event bucket");
    TETRAD_CHECK(std::isfinite(e.start) && std::isfinite(e.end) && e.start <= e.end, ProtocolError,
                 "timeline of rank {}: event '{}' has interval [{}, {}]", rank, e.name, e.start,
                 e.end);
    out.push_back(std::move(e));
  }
  in.expectEnd(fmt::format("timeline of rank {}", rank));
}

}  // namespace

std::string toString(TimelineTrack track) {
  switch (track) {
    case TimelineTrack::kCompute:
      return "compute";
    case TimelineTrack::kCommunication:
      return "communication";
    case TimelineTrack::kServer:
      return "server";
  }
  return "unknown";
}

Timeline::Timeline(int rank, TimelineOptions options) : rank_(rank), options_(options) {
  TETRAD_CHECK(
      options.headIterations >= 0 && options.tailIterations >= 0 && options.otherEvents >= 0,
      InvalidArgument, "timeline: head ({}), tail ({}) and other events ({}) must not be negative",
      options.headIterations, options.tailIterations, options.otherEvents);
}

void Timeline::add(TimelineTrack track, std::string_view name, std::string_view category,
                   double start, double end, int64_t iteration, uint64_t bytes, int64_t bucket) {
  if (!options_.enabled) return;
  TETRAD_CHECK(std::isfinite(start) && std::isfinite(end) && start <= end, InvalidArgument,
               "timeline of rank {}: event '{}' of iteration {} has interval [{}, {}]", rank_, name,
               iteration, start, end);
  keep(TimelineEvent{rank_, track, std::string(name), std::string(category), start, end, iteration,
                     bytes, bucket});
}

void Timeline::keep(TimelineEvent event) {
  std::lock_guard lock(mutex_);
  const int64_t iteration = event.iteration;
  if (iteration < 0) {
    other_.push_back(std::move(event));
    if (static_cast<int64_t>(other_.size()) > options_.otherEvents) {
      other_.pop_front();
      ++dropped_;
    }
  } else if (iteration < options_.headIterations) {
    head_.push_back(std::move(event));
  } else if (auto it = tail_.find(iteration); it != tail_.end()) {
    it->second.push_back(std::move(event));
  } else if (static_cast<int64_t>(tail_.size()) < options_.tailIterations) {
    tail_[iteration].push_back(std::move(event));
  } else if (!tail_.empty() && iteration > tail_.begin()->first) {
    // A newer iteration: it replaces the oldest one of the tail.
    dropped_ += static_cast<int64_t>(tail_.begin()->second.size());
    tail_.erase(tail_.begin());
    tail_[iteration].push_back(std::move(event));
  } else {
    ++dropped_;  // older than every kept tail iteration, or no tail at all
  }
}

std::vector<TimelineEvent> Timeline::events() const {
  std::vector<TimelineEvent> all;
  {
    std::lock_guard lock(mutex_);
    all = head_;
    for (const auto& [iteration, events] : tail_) {
      all.insert(all.end(), events.begin(), events.end());
    }
    all.insert(all.end(), other_.begin(), other_.end());
  }
  std::stable_sort(all.begin(), all.end(), byTrackThenTime);
  return all;
}

int64_t Timeline::droppedEvents() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::vector<TimelineEvent> gatherTimeline(Transport& world, const Timeline& mine, Tag tag) {
  TETRAD_CHECK(mine.rank() == world.rank(), InvalidArgument,
               "timeline gather: the timeline of rank {} was passed on rank {}", mine.rank(),
               world.rank());
  TETRAD_CHECK(world.carriesPayload(), Unsupported,
               "timeline gather: the simulator's payload-free mode carries no event data; "
               "turn the timeline off or run with payloads");
  std::vector<TimelineEvent> own = mine.events();
  if (world.rank() != 0) {
    world.send(0, tag, encodeEvents(own));
    return {};
  }
  std::vector<TimelineEvent> all = std::move(own);
  for (int source = 1; source < world.size(); ++source) {
    try {
      decodeEvents(world.recvMessage(source, tag), source, all);
    } catch (const Error&) {
      rethrowWithPrefix(
          fmt::format("rank 0: timeline gather from rank {} (tag {}): ", source, tag));
    }
  }
  return all;
}

void checkTracksDoNotOverlap(std::span<const TimelineEvent> events) {
  std::vector<const TimelineEvent*> order;
  order.reserve(events.size());
  for (const TimelineEvent& e : events) order.push_back(&e);
  std::stable_sort(order.begin(), order.end(), [](const TimelineEvent* a, const TimelineEvent* b) {
    return std::tie(a->rank, a->track, a->start, a->end) <
           std::tie(b->rank, b->track, b->start, b->end);
  });
  // Sorted by start, a track is free of overlaps iff each event starts at or
  // after the end of the one before it (which then ends last so far). Ends
  // and starts of back-to-back events come from different sums of the same
  // instants and may differ in the last bit: a picosecond (far below
  // SimGrid's 1 ns precision) is not an overlap.
  constexpr double kTolerance = 1e-12;
  const TimelineEvent* last = nullptr;
  for (const TimelineEvent* e : order) {
    if (last != nullptr && last->rank == e->rank && last->track == e->track) {
      TETRAD_CHECK(e->start >= last->end - kTolerance, InvalidArgument,
                   "timeline: on rank {}, track {}, '{}' (iteration {}, [{}, {}]) overlaps "
                   "'{}' (iteration {}, [{}, {}])",
                   e->rank, toString(e->track), last->name, last->iteration, last->start, last->end,
                   e->name, e->iteration, e->start, e->end);
    }
    last = e;
  }
}

double totalSeconds(std::span<const TimelineEvent> events, std::string_view category) {
  double total = 0;
  for (const TimelineEvent& e : events) {
    if (e.category == category) total += e.end - e.start;
  }
  return total;
}

}  // namespace tetrad::train
