#include "collective_checks.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "reference.h"
#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/reduce_scatter.h"

namespace tetrad::testing {
namespace {

// First index where `got` and `want` differ bitwise, or -1.
long firstBitDifference(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::memcmp(&got[i], &want[i], sizeof(float)) != 0) return static_cast<long>(i);
  }
  return -1;
}

class Checker {
 public:
  Checker(Transport& transport, const CheckPlan& plan)
      : t_(transport), plan_(plan), p_(transport.size()), rank_(transport.rank()) {}

  std::vector<std::string> run() {
    for (size_t n : plan_.lengths) {
      checkAllreduce(n);
      checkReduceScatter(n);
      checkAllgather(n);
      checkBroadcast(n);
      checkAllgatherBytes(n);
    }
    checkBarrier();
    return std::move(failures_);
  }

 private:
  void fail(std::string message) {
    failures_.push_back(fmt::format("rank {} of {}: {}", rank_, p_, message));
  }

  void checkAllreduce(size_t n) {
    std::vector<AllreduceAlgorithm> algorithms = {
        AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
        AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
        AllreduceAlgorithm::kHierarchical};
    if (plan_.includeNative) algorithms.push_back(AllreduceAlgorithm::kNative);
    std::vector<double> exact, magnitude;
    exactSum(p_, n, n, exact, magnitude);
    for (AllreduceAlgorithm algorithm : algorithms) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
        const std::string what = fmt::format("{} all-reduce ({}) of {} floats", toString(algorithm),
                                             op == ReduceOp::kSum ? "sum" : "avg", n);
        std::vector<float> data = inputOf(rank_, n, n);
        allreduce(t_, data, AllreduceOptions{algorithm, op, 100});
        const double scale = op == ReduceOp::kAverage ? p_ : 1.0;
        for (size_t i = 0; i < n; ++i) {
          const double tolerance = 4e-7 * (p_ + 1) * magnitude[i] / scale + 1e-30;
          if (!(std::abs(data[i] - exact[i] / scale) <= tolerance)) {
            fail(fmt::format("{}: element {} is {}, the exact value is {}", what, i, data[i],
                             exact[i] / scale));
            break;
          }
        }
        if (algorithm == AllreduceAlgorithm::kNative) continue;
        const std::vector<float> want =
            expectedAllreduce(algorithm, p_, t_.ranksPerNode(), n, op, n);
        const long diff = firstBitDifference(data, want);
        if (diff >= 0) {
          fail(
              fmt::format("{}: element {} is {}, the same-order reference gives {} (not "
                          "bit-exact)",
                          what, diff, data[diff], want[diff]));
        }
      }
    }
  }

  void checkReduceScatter(size_t n) {
    for (ReduceScatterAlgorithm algorithm :
         {ReduceScatterAlgorithm::kRing, ReduceScatterAlgorithm::kRecursiveHalving}) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
        std::vector<float> data = inputOf(rank_, n, n + 1);
        reduceScatter(t_, data, ReduceScatterOptions{algorithm, op, 120});
        const BlockRange mine = blockRange(n, p_, rank_);
        std::vector<float> got(data.begin() + mine.offset, data.begin() + mine.end());
        const std::vector<float> want = expectedReduceScatter(algorithm, p_, rank_, n, op, n + 1);
        const long diff = firstBitDifference(got, want);
        if (diff >= 0) {
          fail(
              fmt::format("{} reduce-scatter ({}) of {} floats: block element {} is {}, "
                          "expected {}",
                          toString(algorithm), op == ReduceOp::kSum ? "sum" : "avg", n, diff,
                          got[diff], want[diff]));
        }
      }
    }
  }

  void checkAllgather(size_t n) {
    for (AllgatherAlgorithm algorithm :
         {AllgatherAlgorithm::kRing, AllgatherAlgorithm::kRecursiveDoubling}) {
      // Equal contributions.
      std::vector<float> out(n * p_, -1.0f);
      allgather(t_, inputOf(rank_, n, n + 2), out, AllgatherOptions{algorithm, 140});
      std::vector<float> want;
      for (int r = 0; r < p_; ++r) {
        std::vector<float> part = inputOf(r, n, n + 2);
        want.insert(want.end(), part.begin(), part.end());
      }
      if (firstBitDifference(out, want) >= 0) {
        fail(fmt::format("{} all-gather of {} floats per rank: wrong result", toString(algorithm),
                         n));
      }
      // Unequal contributions, some empty.
      std::vector<size_t> counts(static_cast<size_t>(p_));
      for (int r = 0; r < p_; ++r) counts[r] = r % 3 == 1 ? 0 : n + static_cast<size_t>(r);
      size_t total = 0;
      want.clear();
      for (int r = 0; r < p_; ++r) {
        std::vector<float> part = inputOf(r, counts[r], n + 3);
        want.insert(want.end(), part.begin(), part.end());
        total += counts[r];
      }
      std::vector<float> outv(total, -1.0f);
      allgatherv(t_, inputOf(rank_, counts[rank_], n + 3), outv, counts,
                 AllgatherOptions{algorithm, 160});
      if (firstBitDifference(outv, want) >= 0) {
        fail(fmt::format("{} all-gatherv around {} floats per rank: wrong result",
                         toString(algorithm), n));
      }
    }
  }

  static std::vector<std::byte> bytePattern(size_t size, int rank) {
    std::vector<std::byte> bytes(size);
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<std::byte>((i * 7 + rank * 13) & 0xff);
    return bytes;
  }

  void checkBroadcast(size_t n) {
    const size_t bytes = n * 4 + 1;  // odd byte counts split into unequal blocks
    for (BroadcastAlgorithm algorithm :
         {BroadcastAlgorithm::kBinomial, BroadcastAlgorithm::kScatterAllgather}) {
      for (int root : {0, p_ - 1, p_ / 2}) {
        std::vector<std::byte> data =
            rank_ == root ? bytePattern(bytes, root) : std::vector<std::byte>(bytes);
        broadcast(t_, MutableBytes(data), BroadcastOptions{algorithm, root, 180});
        if (data != bytePattern(bytes, root)) {
          fail(fmt::format("{} broadcast of {} bytes from rank {}: wrong result",
                           toString(algorithm), bytes, root));
        }
      }
    }
  }

  void checkAllgatherBytes(size_t n) {
    auto sizeOf = [&](int r) { return r % 4 == 2 ? size_t{0} : (n * 3 + r * 37) % 5003; };
    std::vector<ByteBuffer> packets =
        allgatherBytes(t_, bytePattern(sizeOf(rank_), rank_), CollectiveOptions{200});
    bool ok = packets.size() == static_cast<size_t>(p_);
    for (int r = 0; ok && r < p_; ++r) ok = packets[r] == bytePattern(sizeOf(r), r);
    if (!ok) fail(fmt::format("byte all-gather around {} bytes per rank: wrong result", n));
  }

  void checkBarrier() {
    barrier(t_, CollectiveOptions{220});
    const double start = t_.now();
    t_.sleepFor(plan_.barrierDelay * rank_);
    barrier(t_, CollectiveOptions{220});
    const double waited = t_.now() - start;
    // Every rank must have waited for the last one's sleep; allow for the skew
    // of real clocks after the first barrier.
    const double least = plan_.barrierDelay * (p_ - 1) * 0.9 - plan_.barrierDelay * 0.5;
    if (waited < least) {
      fail(fmt::format("barrier returned after {} s, before the slowest rank's {} s sleep", waited,
                       plan_.barrierDelay * (p_ - 1)));
    }
  }

  Transport& t_;
  const CheckPlan& plan_;
  const int p_;
  const int rank_;
  std::vector<std::string> failures_;
};

}  // namespace

std::vector<size_t> standardLengths(int p, size_t large) {
  std::vector<size_t> lengths = {0, 1, static_cast<size_t>(std::max(p - 1, 0)),
                                 static_cast<size_t>(2 * p + 3), 1001};
  if (large > 0) lengths.push_back(large);
  std::sort(lengths.begin(), lengths.end());
  lengths.erase(std::unique(lengths.begin(), lengths.end()), lengths.end());
  return lengths;
}

std::vector<std::string> runCollectiveChecks(Transport& transport, const CheckPlan& plan) {
  try {
    return Checker(transport, plan).run();
  } catch (const std::exception& error) {
    return {fmt::format("rank {}: collective check threw: {}", transport.rank(), error.what())};
  }
}

LaunchOptions starCluster(int p, bool contentionFree) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = p;
  options.timeoutSeconds = 30;
  if (contentionFree) options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  return options;
}

}  // namespace tetrad::testing
