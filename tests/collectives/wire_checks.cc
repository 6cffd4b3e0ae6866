#include "wire_checks.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <cstring>

#include "reference.h"
#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"

namespace tetrad::testing {
namespace {

constexpr AllreduceAlgorithm kAlgorithms[] = {
    AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
    AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree,
    AllreduceAlgorithm::kHierarchical};

uint64_t fnv1a(const std::vector<float>& values) {
  uint64_t h = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(values.data());
  for (size_t i = 0; i < values.size() * sizeof(float); ++i) {
    h = (h ^ bytes[i]) * 0x100000001b3ull;
  }
  return h;
}

class WireChecker {
 public:
  WireChecker(Transport& transport, const WirePlan& plan)
      : t_(transport), plan_(plan), p_(transport.size()), rank_(transport.rank()) {}

  std::vector<std::string> run() {
    for (WirePrecision wire : plan_.wires) {
      for (size_t n : plan_.lengths) {
        checkAgainstReferences(wire, n);
        checkSmallIntegers(wire, n);
      }
    }
    return std::move(failures_);
  }

 private:
  void fail(std::string message) {
    failures_.push_back(fmt::format("rank {} of {}: {}", rank_, p_, message));
  }

  // Every rank's hash of `result` must equal this rank's.
  void checkSameOnEveryRank(const std::vector<float>& result, const std::string& what) {
    const uint64_t mine = fnv1a(result);
    const std::vector<ByteBuffer> hashes =
        allgatherBytes(t_, asBytes(std::span<const uint64_t>(&mine, 1)), CollectiveOptions{200});
    for (int r = 0; r < p_; ++r) {
      uint64_t theirs = 0;
      if (hashes[r].size() == sizeof(theirs)) std::memcpy(&theirs, hashes[r].data(), 8);
      if (theirs != mine) {
        fail(fmt::format("{}: rank {}'s result differs from this rank's", what, r));
        return;
      }
    }
  }

  void checkAgainstReferences(WirePrecision wire, size_t n) {
    std::vector<double> exact, magnitude;
    exactSum(p_, n, n, exact, magnitude);
    const bool half = wire == WirePrecision::kFloat16;
    const double relative = p_ * (half ? 0x1p-10 : 0x1p-7);
    const double absolute = half ? p_ * 0x1p-24 : 1e-30;
    for (AllreduceAlgorithm algorithm : kAlgorithms) {
      for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kAverage}) {
        const std::string what =
            fmt::format("{} all-reduce ({}) of {} floats, {} wire", toString(algorithm),
                        op == ReduceOp::kSum ? "sum" : "avg", n, toString(wire));
        std::vector<float> data = inputOf(rank_, n, n);
        allreduce(t_, data, AllreduceOptions{algorithm, op, 100, wire});
        const double scale = op == ReduceOp::kAverage ? p_ : 1.0;
        for (size_t i = 0; i < n; ++i) {
          const double tolerance = (relative * magnitude[i] + absolute) / scale;
          if (!(std::abs(data[i] - exact[i] / scale) <= tolerance)) {
            fail(fmt::format("{}: element {} is {}, the exact value is {} (bound {})", what, i,
                             data[i], exact[i] / scale, tolerance));
            break;
          }
        }
        const std::vector<float> want =
            expectedAllreduce(algorithm, p_, t_.ranksPerNode(), n, op, n, wire);
        for (size_t i = 0; i < n; ++i) {
          if (std::memcmp(&data[i], &want[i], sizeof(float)) != 0) {
            fail(fmt::format("{}: element {} is {}, the same-order rounded reference gives {}",
                             what, i, data[i], want[i]));
            break;
          }
        }
        checkSameOnEveryRank(data, what);
      }
    }
  }

  // Integers in [-2, 2]: every partial sum of at most 9 ranks is exact in
  // both 16-bit formats, so every algorithm must return the exact sum.
  void checkSmallIntegers(WirePrecision wire, size_t n) {
    auto value = [](int rank, size_t i) {
      return static_cast<float>(static_cast<int>((3 * static_cast<size_t>(rank) + i) % 5) - 2);
    };
    for (AllreduceAlgorithm algorithm : kAlgorithms) {
      std::vector<float> data(n);
      for (size_t i = 0; i < n; ++i) data[i] = value(rank_, i);
      allreduce(t_, data, AllreduceOptions{algorithm, ReduceOp::kSum, 100, wire});
      for (size_t i = 0; i < n; ++i) {
        float sum = 0;
        for (int r = 0; r < p_; ++r) sum += value(r, i);
        if (data[i] != sum) {
          fail(
              fmt::format("{} all-reduce of {} small integers, {} wire: element {} is {}, "
                          "expected exactly {}",
                          toString(algorithm), n, toString(wire), i, data[i], sum));
          break;
        }
      }
    }
  }

  Transport& t_;
  const WirePlan& plan_;
  const int p_;
  const int rank_;
  std::vector<std::string> failures_;
};

}  // namespace

std::vector<std::string> runWireChecks(Transport& transport, const WirePlan& plan) {
  try {
    return WireChecker(transport, plan).run();
  } catch (const std::exception& error) {
    return {fmt::format("rank {}: wire check threw: {}", transport.rank(), error.what())};
  }
}

}  // namespace tetrad::testing
