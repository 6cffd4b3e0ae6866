#include "tetrad/train/timing/simulated_scale.h"

#include <fstream>
#include <sstream>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

// Measured with /usr/bin/time's peak RSS on this project's build machine,
// analytic engine, payload-free, 2 iterations: mlp (6 tensors) at 1,024 /
// 4,096 / 8,192 ranks, resnet50 (161 tensors) at 2,048 / 4,096. Fitted as
// a + b·tensors per rank plus c per pair of ranks (the set-up's
// all-gathers), rounded up.
constexpr double kBytesPerRank = 64 * 1024.0;
constexpr double kBytesPerRankTensor = 2.5 * 1024.0;
constexpr double kBytesPerRankPair = 24.0;
// The process itself (libraries, the model's tables) and a margin.
constexpr double kBaseBytes = 256.0 * 1024 * 1024;
constexpr int64_t kMappingsPerRank = 2;
constexpr int64_t kBaseMappings = 4096;

double gib(double bytes) {
  return bytes / (1024.0 * 1024 * 1024);
}

}  // namespace

double simulatedRunBytes(int64_t ranks, int64_t tensors) {
  const double n = double(ranks);
  return kBaseBytes + n * (kBytesPerRank + kBytesPerRankTensor * double(tensors)) +
         n * n * kBytesPerRankPair;
}

int64_t simulatedRunMappings(int64_t ranks) {
  return kBaseMappings + kMappingsPerRank * ranks;
}

MachineLimits readMachineLimits() {
  MachineLimits limits;
  std::ifstream meminfo("/proc/meminfo");
  std::string line;
  while (std::getline(meminfo, line)) {
    if (!line.starts_with("MemAvailable:")) continue;
    std::istringstream fields(line.substr(13));
    double kib = 0;
    if (fields >> kib) limits.availableBytes = kib * 1024;
  }
  std::ifstream mapCount("/proc/sys/vm/max_map_count");
  int64_t count = 0;
  if (mapCount >> count) limits.maxMappings = count;
  return limits;
}

void checkSimulatedScale(int64_t ranks, int64_t tensors, const MachineLimits& limits) {
  const double bytes = simulatedRunBytes(ranks, tensors);
  TETRAD_CHECK(limits.availableBytes <= 0 || bytes <= 0.9 * limits.availableBytes, InvalidArgument,
               "{} simulated ranks of {} tensors need about {:.3g} GiB (measured on the analytic "
               "engine: {:.0f} KiB + {:.1f} KiB per tensor per rank, {:.0f} B per pair of ranks), "
               "{:.3g} GiB available: use fewer workers",
               ranks, tensors, gib(bytes), kBytesPerRank / 1024, kBytesPerRankTensor / 1024,
               kBytesPerRankPair, gib(limits.availableBytes));
  const int64_t mappings = simulatedRunMappings(ranks);
  TETRAD_CHECK(limits.maxMappings <= 0 || mappings <= limits.maxMappings, InvalidArgument,
               "{} simulated ranks need about {} memory mappings (2 per rank: its stack and guard "
               "page), above vm.max_map_count {}: use fewer workers, or raise the limit "
               "(sysctl -w vm.max_map_count={})",
               ranks, mappings, limits.maxMappings, mappings);
}

}  // namespace tetrad::train
