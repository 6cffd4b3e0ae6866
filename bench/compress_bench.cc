// Google Benchmark micro-benchmarks of the quantising compressors: encode
// and decodeAdd of every QUANT compressor beside memcpy of the same float32
// buffer, reported as bytes/s of float32 input. Sizes: 1M and 16M elements.
// One state and output buffer per benchmark (warm residuals and pages); each
// encode's packet is handed back with recyclePacket() before the next one,
// as aggregate() does in training, so encodes write into warm pages. The
// ratio to memcpy is bytes_per_second of Encode/<spec> over BM_Memcpy's in
// the same run (docs/BENCHMARKS.md).
#include <benchmark/benchmark.h>

#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tetrad/compress/registry.h"

namespace {

std::vector<float> makeInput(size_t n) {
  std::mt19937 generator(1);
  std::normal_distribution<float> normal;
  std::vector<float> x(n);
  for (float& v : x) v = normal(generator);
  return x;
}

const std::vector<float>& input(size_t n) {
  static std::vector<float> small = makeInput(size_t{1} << 20);
  static std::vector<float> large = makeInput(size_t{16} << 20);
  return n == small.size() ? small : large;
}

void BM_Memcpy(benchmark::State& state) {
  const std::vector<float>& x = input(static_cast<size_t>(state.range(0)));
  std::vector<float> y(x.size());
  for (auto _ : state) {
    std::memcpy(y.data(), x.data(), x.size() * sizeof(float));
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * x.size() * sizeof(float)));
}
BENCHMARK(BM_Memcpy)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMicrosecond);

void BM_Encode(benchmark::State& state, const std::string& spec) {
  const std::vector<float>& x = input(static_cast<size_t>(state.range(0)));
  tetrad::CompressorPtr compressor = tetrad::makeCompressor(spec);
  tetrad::CompressorState cs;
  cs.seed = 1;
  tetrad::Packet packet = compressor->encode(x, cs);  // warm residual buffers
  for (auto _ : state) {
    tetrad::recyclePacket(std::move(packet), cs);
    packet = compressor->encode(x, cs);
    benchmark::DoNotOptimize(packet.bytes.data());
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * x.size() * sizeof(float)));
  state.counters["bits/elt"] = 8.0 * static_cast<double>(packet.size()) / x.size();
}

void BM_Decode(benchmark::State& state, const std::string& spec) {
  const std::vector<float>& x = input(static_cast<size_t>(state.range(0)));
  tetrad::CompressorPtr compressor = tetrad::makeCompressor(spec);
  tetrad::CompressorState cs;
  tetrad::Packet packet = compressor->encode(x, cs);
  std::vector<float> out(x.size(), 0.0f);
  for (auto _ : state) {
    compressor->decodeAdd(packet.bytes, out);
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * x.size() * sizeof(float)));
}

const char* const kSpecs[] = {"none",   "fp16",     "bf16",    "onebit", "sign",
                              "efsign", "terngrad", "qsgd:16", "natural"};

int registerAll() {
  for (const char* spec : kSpecs) {
    benchmark::RegisterBenchmark((std::string("Encode/") + spec).c_str(), BM_Encode, spec)
        ->Arg(1 << 20)
        ->Arg(16 << 20)
        ->Unit(benchmark::kMicrosecond);
    benchmark::RegisterBenchmark((std::string("Decode/") + spec).c_str(), BM_Decode, spec)
        ->Arg(1 << 20)
        ->Arg(16 << 20)
        ->Unit(benchmark::kMicrosecond);
  }
  return 0;
}
const int kRegistered = registerAll();

}  // namespace
