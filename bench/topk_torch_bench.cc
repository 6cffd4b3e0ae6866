// Top-k selection, 1% of 16M float32 elements: tetrad's Top-k compressor
// (exact radix select and the approximate sampled-threshold kernel, both
// returning the exact top-k; compress/selection.h) beside torch::topk on
// |x| (LibTorch CPU, sorted=false), the baseline a PyTorch user would call.
// The tetrad numbers include building the packet (indices + values).
#include <benchmark/benchmark.h>
#include <torch/torch.h>

#include <vector>

#include "tetrad/compress/registry.h"

namespace {

constexpr int64_t kElements = int64_t{16} << 20;
constexpr int64_t kKept = kElements / 100;

const torch::Tensor& tensor() {
  static torch::Tensor x = [] {
    torch::manual_seed(1);
    return torch::randn({kElements});
  }();
  return x;
}

void BM_TorchTopK(benchmark::State& state) {
  torch::set_num_threads(static_cast<int>(state.range(0)));
  const torch::Tensor& x = tensor();
  for (auto _ : state) {
    auto [values, indices] = torch::topk(x.abs(), kKept, /*dim=*/0, /*largest=*/true,
                                         /*sorted=*/false);
    benchmark::DoNotOptimize(indices.data_ptr());
  }
  state.SetBytesProcessed(state.iterations() * kElements * 4);
}
BENCHMARK(BM_TorchTopK)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_TetradTopK(benchmark::State& state, const char* spec) {
  const torch::Tensor& x = tensor();
  std::span<const float> view(x.data_ptr<float>(), static_cast<size_t>(kElements));
  tetrad::CompressorPtr compressor = tetrad::makeCompressor(spec);
  tetrad::CompressorState cs;
  for (auto _ : state) {
    tetrad::Packet packet = compressor->encode(view, cs);
    benchmark::DoNotOptimize(packet.bytes.data());
  }
  state.SetBytesProcessed(state.iterations() * kElements * 4);
}
BENCHMARK_CAPTURE(BM_TetradTopK, exact, "topk:0.01:exact")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK_CAPTURE(BM_TetradTopK, approx, "topk:0.01:approx")
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace
