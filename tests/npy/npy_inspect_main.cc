// tetrad_npy_inspect FILE.npy      -> "uint8 3x4x5 <fnv1a-64 of the data>"
// tetrad_npy_inspect --dataset DIR -> "train N CxHxW classes K test M"
// On bad input: one line on stderr, exit status 2 (as `tetrad train`).
// Used by test_npy_numpy.py with files that NumPy wrote.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <string>

#include "tetrad/core/error.h"
#include "tetrad/train/data/npy_dataset.h"
#include "tetrad/train/data/npy_reader.h"

int main(int argc, char** argv) {
  using namespace tetrad::train;
  try {
    if (argc == 3 && std::string(argv[1]) == "--dataset") {
      DataSplits s = loadNpyDataset(argv[2]);
      fmt::print("train {} {}x{}x{} classes {} test {}\n", s.train.size(), s.train.channels,
                 s.train.height, s.train.width, s.train.numClasses, s.test.size());
      return 0;
    }
    if (argc != 2) {
      fmt::print(stderr, "usage: tetrad_npy_inspect FILE.npy | --dataset DIR\n");
      return 2;
    }
    NpyArray a = readNpyFile(argv[1]);
    uint64_t hash = 1469598103934665603ull;
    for (std::byte b : a.data) hash = (hash ^ uint64_t(b)) * 1099511628211ull;
    fmt::print("{} {} {:016x}\n", toString(a.type),
               a.shape.empty() ? "scalar" : fmt::format("{}", fmt::join(a.shape, "x")), hash);
    return 0;
  } catch (const tetrad::Error& error) {
    fmt::print(stderr, "{}\n", error.what());
    return 2;
  }
}
