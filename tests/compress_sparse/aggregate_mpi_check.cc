// aggregate() of every compressor on the Open MPI engine against the same
// calls on a simulated cluster, bit for bit, for a fused bucket of several
// tensors and for the same tensors one bucket each (the layer-wise
// ablation). Run under mpirun -np N (tests/compress_sparse/CMakeLists.txt):
// every MPI rank first runs the N-rank simulation in-process (the
// reference: aggregate_sim_test checks it against decode-and-sum and each
// protocol's definition), then the real exchange, two steps each, with the
// run's ring all-reduce, so reduction orders are the same on both engines.
// Exits 0 when every compressor agrees on this rank, 1 otherwise.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "test_util.h"
#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

constexpr int kSteps = 2;
// A fused bucket: two matrices and their biases.
const std::vector<std::vector<int64_t>> kLayout = {{24, 20}, {24}, {16, 30}, {16}};
constexpr size_t kCount = 24 * 20 + 24 + 16 * 30 + 16;

std::vector<float> gradientOf(int rank, int step) {
  return testing::gaussian(kCount, 100 * step + rank + 1);
}

// results[step] = this rank's aggregated bucket (fused) or tensors one after
// another (layer-wise), on `transport`.
std::vector<std::vector<float>> exchange(Transport& transport, const std::string& spec,
                                         bool fused) {
  CompressorPtr compressor = makeCompressor(spec);
  std::vector<CompressorState> states(fused ? 1 : kLayout.size());
  for (size_t b = 0; b < states.size(); ++b) {
    states[b].seed = 1000 + b;
    states[b].rank = transport.rank();
    if (fused) {
      states[b].layout = kLayout;
    } else {
      states[b].shape = kLayout[b];
    }
  }
  std::vector<std::vector<float>> results;
  for (int step = 0; step < kSteps; ++step) {
    std::vector<float> values = gradientOf(transport.rank(), step);
    size_t offset = 0;
    for (size_t b = 0; b < states.size(); ++b) {
      size_t count = kCount;
      if (!fused) {
        count = 1;
        for (int64_t dim : kLayout[b]) count *= size_t(dim);
      }
      AggregateOptions options;
      options.tag = 1000 + Tag(b) * kAggregateTagSpan;
      aggregate(transport, *compressor, std::span<float>(values).subspan(offset, count), states[b],
                options);
      offset += count;
    }
    results.push_back(std::move(values));
  }
  return results;
}

}  // namespace
}  // namespace tetrad

int main() {
  using namespace tetrad;
  std::vector<std::string> specs;
  for (const CompressorInfo& info : registeredCompressors()) specs.push_back(info.example);
  for (const char* extra : {"topk:0.01,ef", "powersgd:2:batched", "sign:momentum=0.9"}) {
    specs.push_back(extra);
  }
  LaunchOptions real;
  real.cluster = "mpi";
  real.timeoutSeconds = 60;
  // The world size is only known inside the MPI launch; the reference runs
  // first on a simulated cluster of every size this check is registered for.
  const char* np = std::getenv("OMPI_COMM_WORLD_SIZE");
  const int size = np ? std::atoi(np) : 1;
  // simulated[mode][spec][rank]: mode 0 fused, 1 layer-wise.
  std::vector<std::vector<std::vector<std::vector<std::vector<float>>>>> simulated(2);
  for (int mode = 0; mode < 2; ++mode) {
    for (const std::string& spec : specs) {
      simulated[mode].emplace_back(size);
      LaunchOptions sim;
      sim.cluster = fmt::format("sim:{}x10Gbps,25us", size);
      sim.timeoutSeconds = 60;
      launch(sim, [&](Transport& t) {
        simulated[mode].back()[t.rank()] = exchange(t, spec, mode == 0);
      });
    }
  }
  std::vector<std::string> failures;
  launch(real, [&](Transport& t) {
    for (int mode = 0; mode < 2; ++mode) {
      for (size_t s = 0; s < specs.size(); ++s) {
        if (exchange(t, specs[s], mode == 0) != simulated[mode][s][t.rank()]) {
          failures.push_back(fmt::format("{} ({}): rank {} differs from the simulation", specs[s],
                                         mode == 0 ? "fused" : "layer-wise", t.rank()));
        }
      }
    }
  });
  for (const std::string& failure : failures) std::fprintf(stderr, "FAIL %s\n", failure.c_str());
  if (failures.empty()) {
    std::printf("%zu compressors x {fused, layer-wise}: MPI equals the simulation bit for bit\n",
                specs.size());
  }
  return failures.empty() ? 0 : 1;
}
