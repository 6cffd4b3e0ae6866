// Calibration measurements (calibration_run.h). Costs per repetition, on the
// α–β model of one message T(m) = α + m·β: barrier log2(p)·α, then
// pingpong 2·T(m), exchange T(m) (full duplex), ring 2(p−1)·T(m/p).
#include "tetrad/model/netprofile/calibration_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstddef>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/collectives/collective_options.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"

namespace tetrad::model {
namespace {

struct Tags {
  Tag pingpong, exchange, barrier, ring;
};

// Median, min and max of `times` (sorted in place).
ProfilePoint summarize(const std::string& series, int ranks, uint64_t bytes,
                       std::vector<double>& times) {
  std::sort(times.begin(), times.end());
  const size_t n = times.size();
  ProfilePoint point;
  point.series = series;
  point.ranks = ranks;
  point.bytes = bytes;
  point.seconds = n % 2 == 1 ? times[n / 2] : (times[n / 2 - 1] + times[n / 2]) / 2;
  point.min = times.front();
  point.max = times.back();
  point.repetitions = static_cast<int>(n);
  return point;
}

// Exchanges timed per repetition: several for small messages, where one
// exchange lasts about as long as the ranks' skew.
int exchangesPerRepetition(uint64_t bytes) {
  return bytes <= (64u << 10) ? 8 : bytes <= (1u << 20) ? 2 : 1;
}

// One repetition of `series` at `bytes`; rank 0's elapsed seconds.
double once(Transport& t, const Tags& tags, const std::string& series, uint64_t bytes,
            std::vector<std::byte>& out, std::vector<std::byte>& in, std::vector<float>& ring) {
  barrier(t, CollectiveOptions{tags.barrier});
  const double start = t.now();
  const int peer = 1 - t.rank();
  ConstBytes send(out.data(), bytes);
  MutableBytes recv(in.data(), bytes);
  if (series == "pingpong") {
    if (t.rank() == 0) {
      t.send(1, tags.pingpong, send);
      t.recv(1, tags.pingpong, recv);
    } else if (t.rank() == 1) {
      t.recv(0, tags.pingpong, recv);
      t.send(0, tags.pingpong, send);
    }
    return (t.now() - start) / 2;
  }
  if (series == "exchange") {
    // Back-to-back exchanges lock the two ranks into step: the first one
    // absorbs the barrier's exit skew (about one latency, which would
    // otherwise hide the latency of a small exchange), the rest are timed.
    const int timed = exchangesPerRepetition(bytes);
    double first = start;
    for (int k = 0; k <= timed && t.rank() <= 1; ++k) {
      if (k == 1) first = t.now();
      RequestPtr r = t.irecv(peer, tags.exchange, recv);
      RequestPtr s = t.isend(peer, tags.exchange, send);
      s->wait();
      r->wait();
    }
    return (t.now() - first) / timed;
  }
  allreduce(t, std::span<float>(ring.data(), bytes / sizeof(float)),
            AllreduceOptions{AllreduceAlgorithm::kRing, ReduceOp::kSum, tags.ring});
  return t.now() - start;
}

}  // namespace

std::vector<uint64_t> geometricSizes(uint64_t m0, uint64_t m1, double factor) {
  TETRAD_CHECK(m0 >= 1 && m0 <= m1, InvalidArgument,
               "message sizes: need 1 <= smallest <= largest, got {} and {}", m0, m1);
  TETRAD_CHECK(std::isfinite(factor) && factor > 1, InvalidArgument,
               "message sizes: the step factor must be > 1, got {}", factor);
  std::vector<uint64_t> sizes;
  for (double m = static_cast<double>(m0); m < static_cast<double>(m1) * (1 + 1e-9); m *= factor) {
    const auto rounded = static_cast<uint64_t>(std::llround(m));
    if (sizes.empty() || rounded > sizes.back()) sizes.push_back(rounded);
  }
  if (sizes.back() != m1) sizes.push_back(m1);
  return sizes;
}

int repetitionsFor(const CalibrationPlan& plan, uint64_t bytes) {
  if (bytes <= plan.repetitionBytes) return plan.repetitions;
  const double scaled =
      plan.repetitions * static_cast<double>(plan.repetitionBytes) / static_cast<double>(bytes);
  return std::max(plan.minRepetitions, static_cast<int>(std::ceil(scaled)));
}

std::vector<ProfilePoint> measureNetwork(Transport& transport, TagSpace& tags,
                                         const CalibrationPlan& plan) {
  const int p = transport.size();
  TETRAD_CHECK(p >= 2, InvalidArgument,
               "tetrad calibrate measures the network between ranks: it needs 2 or more ranks "
               "(mpirun -np 2 ...), got {}",
               p);
  TETRAD_CHECK(!plan.sizes.empty() && plan.repetitions >= 1 && plan.minRepetitions >= 1,
               InvalidArgument, "calibration: no sizes or no repetitions");
  Tags t;
  t.pingpong = tags.reserve(1, "calibrate pingpong");
  t.exchange = tags.reserve(1, "calibrate exchange");
  t.barrier = tags.reserve(kCollectiveTagSpan, "calibrate barrier");
  t.ring = tags.reserve(kCollectiveTagSpan, "calibrate ring");
  const uint64_t largest = *std::max_element(plan.sizes.begin(), plan.sizes.end());
  // Touched once here, so that no measurement pays for page faults.
  std::vector<std::byte> out(largest, std::byte{1}), in(largest, std::byte{0});
  std::vector<float> ring(largest / sizeof(float) + 1, 1.0f);

  std::vector<std::string> series;
  if (plan.pingpong) series.push_back("pingpong");
  if (plan.exchange) series.push_back("exchange");
  if (plan.ring) series.push_back("ring");
  std::vector<ProfilePoint> points;
  for (const std::string& name : series) {
    for (uint64_t bytes : plan.sizes) {
      // A ring needs at least one float per rank.
      if (name == "ring" && bytes < sizeof(float) * static_cast<uint64_t>(p)) continue;
      for (int w = 0; w < plan.warmup; ++w) once(transport, t, name, bytes, out, in, ring);
      std::vector<double> times;
      const int reps = repetitionsFor(plan, bytes);
      for (int r = 0; r < reps; ++r)
        times.push_back(once(transport, t, name, bytes, out, in, ring));
      if (transport.rank() != 0) continue;
      points.push_back(summarize(name, name == "ring" ? p : 2, bytes, times));
      const ProfilePoint& q = points.back();
      if (plan.progress) {
        plan.progress(fmt::format("# calibrate {} {} ({} B): median {} (min {}, max {}) over {}",
                                  name, formatBytes(static_cast<double>(bytes)), bytes,
                                  formatSeconds(q.seconds), formatSeconds(q.min),
                                  formatSeconds(q.max), reps));
      }
    }
  }
  barrier(transport, CollectiveOptions{t.barrier});
  return points;
}

}  // namespace tetrad::model
