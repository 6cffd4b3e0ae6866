// `tetrad bench compressors`: encode and decode throughput of every
// compressor against memcpy, on this machine's CPU.
//
//   tetrad bench compressors [--compressors none,fp16,topk:0.01,ef]
//                            [--sizes 1M,16M,64M] [--iters 5] [--warmup 1]
//
// For every size (elements of float32; K, M, G are powers of 1024) the
// input is filled once with deterministic pseudo-random values, and memcpy
// of the same buffer is timed first, in the same run. For every compressor
// (default: every registered one, with its example parameters) one state
// and one output buffer are reused across iterations, and each packet is
// recycled into the state for the next encode (recyclePacket(), as
// aggregate() does), so error-feedback residuals and pages are warm; after --warmup untimed rounds,
// --iters encodes and --iters decodeAdd calls are timed one by one. The table shows the median time
// as GB/s of float32 input (4·n bytes / time, memcpy likewise), the ratio to memcpy, and the wire
// cost in bits per element of the packet actually produced. Custom-protocol compressors (sign,
// gtopk, powersgd) are measured on their local encode/decode only.
//
// --profile FILE also writes a codec profile (model/codec_profile.h), the
// table that simulated and timing-only runs charge codec work from: per
// compressor family (every registered one, with its example spec) encode
// and decode are timed at --profile-sizes (two counts, default 64K and 4M)
// and fitted as per_call + elements · per_element; PowerSGD's per-element
// cost is divided by its example's rank (it scales with the rank); "ef" is
// error feedback's own work, topk:0.01,ef minus topk:0.01 on encode.
//
// Table on stdout; progress on stderr. Bad flags throw InvalidArgument.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "tetrad/compress/counter_rng.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/model/codec_profile.h"

namespace tetrad::app {
namespace {

struct BenchFlags {
  std::string compressors;  // empty: every registered example
  std::string sizes = "1M,16M,64M";
  int iters = 5;
  int warmup = 1;
  std::string profile;  // write a codec profile here
  std::string profileSizes = "64K,4M";
};

std::vector<std::string> splitList(const std::string& text) {
  std::vector<std::string> items;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? comma : comma - start);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return items;
}

// "none,topk:0.01,ef,qsgd:4" -> {"none", "topk:0.01,ef", "qsgd:4"}: an "ef"
// item belongs to the spec before it.
std::vector<std::string> parseCompressorList(const std::string& text) {
  std::vector<std::string> specs;
  for (const std::string& item : splitList(text)) {
    if (item == "ef") {
      TETRAD_CHECK(!specs.empty(), InvalidArgument, "--compressors: 'ef' must follow a spec");
      specs.back() += ",ef";
    } else {
      specs.push_back(item);
    }
  }
  TETRAD_CHECK(!specs.empty(), InvalidArgument, "--compressors: empty list");
  return specs;
}

std::string currentDate() {
  const std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d", std::gmtime(&now));
  return text;
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t m = values.size() / 2;
  return values.size() % 2 ? values[m] : 0.5 * (values[m - 1] + values[m]);
}

template <typename F>
double medianTime(int warmup, int iters, F&& body) {
  for (int i = 0; i < warmup; ++i) body();
  std::vector<double> times;
  for (int i = 0; i < iters; ++i) {
    auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(seconds(std::chrono::steady_clock::now() - start));
  }
  return median(times);
}

// Rows x columns with rows the largest divisor of n not above sqrt(n).
std::vector<int64_t> matrixShape(size_t n) {
  size_t rows = 1;
  for (size_t r = 1; r * r <= n; ++r) {
    if (n % r == 0) rows = r;
  }
  return {static_cast<int64_t>(rows), static_cast<int64_t>(n / rows)};
}

void fillInput(std::vector<float>& x) {
  // Roughly N(0, 1)-shaped (sum of two uniforms), cheap to generate.
  const CounterRng rng(1, 0, 0, 0);
  for (size_t start = 0, block = 0; start < x.size(); start += kRngBlock, ++block) {
    const CounterRng::Key key = rng.blockKey(block);
    const size_t len = std::min(kRngBlock, x.size() - start);
    for (size_t i = 0; i < len; ++i) {
      uint32_t bits = CounterRng::bits(key, static_cast<uint32_t>(i));
      float a = static_cast<float>(bits & 0xffff) * 0x1p-16f;
      float b = static_cast<float>(bits >> 16) * 0x1p-16f;
      x[start + i] = 1.7f * (a + b - 1.0f);
    }
  }
}

struct CodecTimes {
  double encode = 0, decode = 0;  // seconds, median
};

// Median encode and decodeAdd seconds of `compressor` on the first `n`
// elements of `input`, as runBench() times them.
CodecTimes timeEncodeDecode(const Compressor& compressor, const std::vector<float>& input, size_t n,
                            const BenchFlags& flags) {
  std::vector<float> output(n, 0.0f);
  CompressorState state;
  state.seed = 1;
  state.shape = matrixShape(n);
  const std::span<const float> values(input.data(), n);
  Packet packet;
  CodecTimes t;
  t.encode = medianTime(flags.warmup, flags.iters, [&] {
    recyclePacket(std::move(packet), state);
    packet = compressor.encode(values, state);
  });
  t.decode =
      medianTime(flags.warmup, flags.iters, [&] { compressor.decodeAdd(packet.bytes, output); });
  return t;
}

std::string hostCpu() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("model name")) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

// Per call and per element: the line through the two sizes' times (each
// clamped at zero, where noise would make it negative).
void fit(double small, double large, size_t n1, size_t n2, double& perCall, double& perElement) {
  perElement = std::max(0.0, (large - small) / double(n2 - n1));
  perCall = std::max(0.0, small - perElement * double(n1));
}

void writeProfile(const BenchFlags& flags) {
  std::vector<size_t> sizes;
  for (const std::string& item : splitList(flags.profileSizes)) sizes.push_back(parseBytes(item));
  TETRAD_CHECK(sizes.size() == 2 && sizes[0] >= 1 && sizes[1] > sizes[0], InvalidArgument,
               "--profile-sizes '{}': give two element counts, the second larger",
               flags.profileSizes);
  std::vector<float> input(sizes[1]);
  fillInput(input);
  model::CodecProfile profile;
  profile.name = std::filesystem::path(flags.profile).stem().string();
  profile.device = hostCpu() + ", one thread";
  const std::string when = currentDate();
  profile.source = fmt::format(
      "tetrad bench compressors --profile (median of {} timed calls after {} warm-up, at {} and "
      "{} elements), {}",
      flags.iters, flags.warmup, sizes[0], sizes[1], when);
  // Each profile row: its key, the spec timed, and for the error-feedback
  // row the inner compressor whose own work is subtracted.
  struct Row {
    std::string family, spec, inner;
  };
  std::vector<Row> rows;
  for (const CompressorInfo& info : registeredCompressors()) {
    if (!makeCompressor(info.example)->isIdentity()) rows.push_back({info.name, info.example, ""});
  }
  rows.push_back({"ef", "topk:0.01,ef", "topk:0.01"});
  for (const auto& [family, spec, innerSpec] : rows) {
    std::fprintf(stderr, "[bench compressors] profile: %s\n", spec.c_str());
    const CompressorPtr compressor = makeCompressor(spec);
    CodecTimes small = timeEncodeDecode(*compressor, input, sizes[0], flags);
    CodecTimes large = timeEncodeDecode(*compressor, input, sizes[1], flags);
    if (!innerSpec.empty()) {  // error feedback's own work: minus the inner's
      const CompressorPtr inner = makeCompressor(innerSpec);
      const CodecTimes s0 = timeEncodeDecode(*inner, input, sizes[0], flags);
      const CodecTimes l0 = timeEncodeDecode(*inner, input, sizes[1], flags);
      small = {std::max(0.0, small.encode - s0.encode), 0};
      large = {std::max(0.0, large.encode - l0.encode), 0};
    }
    const CompressorParams params = parseCompressorSpec(spec);
    model::CodecRate rate;
    fit(small.encode, large.encode, sizes[0], sizes[1], rate.encodeSecondsPerCall,
        rate.encodeSecondsPerElement);
    fit(small.decode, large.decode, sizes[0], sizes[1], rate.decodeSecondsPerCall,
        rate.decodeSecondsPerElement);
    if (compressor->codecWorkScalesWithFirstParameter()) {  // per unit of rank
      const double rank = params.positiveNumber(0, "rank");
      rate.scaleByFirstParameter = true;
      rate.encodeSecondsPerElement /= rank;
      rate.decodeSecondsPerElement /= rank;
    }
    rate.source = fmt::format("measured: {} on this host, {}", spec, when);
    profile.entries[family] = rate;
  }
  std::ofstream out(flags.profile);
  TETRAD_CHECK(out.good(), InvalidArgument, "--profile: cannot write {}", flags.profile);
  out << model::toJson(profile);
  std::fprintf(stderr, "[bench compressors] codec profile written to %s\n", flags.profile.c_str());
}

void runBench(const BenchFlags& flags) {
  TETRAD_CHECK(flags.iters >= 1, InvalidArgument, "--iters must be >= 1, got {}", flags.iters);
  TETRAD_CHECK(flags.warmup >= 0, InvalidArgument, "--warmup must be >= 0, got {}", flags.warmup);
  std::vector<size_t> sizes;
  for (const std::string& item : splitList(flags.sizes)) {
    uint64_t n = parseBytes(item);
    TETRAD_CHECK(n >= 1 && n <= (uint64_t{1} << 31), InvalidArgument,
                 "--sizes: '{}' must be between 1 and 2G elements", item);
    sizes.push_back(static_cast<size_t>(n));
  }
  TETRAD_CHECK(!sizes.empty(), InvalidArgument, "--sizes: empty list");
  std::vector<std::string> specs;
  if (flags.compressors.empty()) {
    for (const CompressorInfo& info : registeredCompressors()) specs.push_back(info.example);
  } else {
    specs = parseCompressorList(flags.compressors);
  }
  std::vector<CompressorPtr> compressors;
  for (const std::string& spec : specs) compressors.push_back(makeCompressor(spec));

  std::printf(
      "# tetrad bench compressors: median of %d iterations (%d warm-up), GB/s of float32 "
      "input; tensors viewed as near-square matrices (powersgd, onebit:col); custom "
      "protocols (sign vote, gtopk, powersgd) time local encode/decode only\n",
      flags.iters, flags.warmup);
  std::printf("%-18s %10s %9s %10s %8s %10s %8s\n", "compressor", "elements", "bits/elt", "encode",
              "/memcpy", "decode", "/memcpy");
  for (size_t n : sizes) {
    std::fprintf(stderr, "[bench compressors] %zu elements: filling input\n", n);
    std::vector<float> input(n), copy(n, 0.0f), output(n, 0.0f);
    fillInput(input);
    const double bytes = 4.0 * static_cast<double>(n);
    const double memcpyTime = medianTime(flags.warmup, flags.iters, [&] {
      std::memcpy(copy.data(), input.data(), n * sizeof(float));
    });
    const double memcpyRate = bytes / memcpyTime / 1e9;
    std::printf("%-18s %10zu %9.2f %10.2f %8.2f %10.2f %8.2f\n", "memcpy", n, 32.0, memcpyRate, 1.0,
                memcpyRate, 1.0);
    std::fflush(stdout);
    for (size_t c = 0; c < compressors.size(); ++c) {
      std::fprintf(stderr, "[bench compressors] %zu elements: %s\n", n, specs[c].c_str());
      const Compressor& compressor = *compressors[c];
      CompressorState state;
      state.seed = 1;
      // A near-square matrix view, as a weight gradient would have: used by
      // the compressors that read the shape (powersgd, onebit:col).
      state.shape = matrixShape(n);
      // Each packet is handed back to the state once used, as aggregate()
      // does, so the next encode writes into the same warm pages.
      Packet packet;
      const double encodeTime = medianTime(flags.warmup, flags.iters, [&] {
        recyclePacket(std::move(packet), state);
        packet = compressor.encode(input, state);
      });
      const double decodeTime = medianTime(flags.warmup, flags.iters,
                                           [&] { compressor.decodeAdd(packet.bytes, output); });
      const double bits = 8.0 * static_cast<double>(packet.size()) / static_cast<double>(n);
      const double encodeRate = bytes / encodeTime / 1e9, decodeRate = bytes / decodeTime / 1e9;
      std::printf("%-18s %10zu %9.2f %10.2f %8.2f %10.2f %8.2f\n", specs[c].c_str(), n, bits,
                  encodeRate, encodeRate / memcpyRate, decodeRate, decodeRate / memcpyRate);
      std::fflush(stdout);
    }
  }
}

CommandRegistration registration([](CommandGroups& groups) {
  auto flags = std::make_shared<BenchFlags>();
  CLI::App* cmd = groups.bench->add_subcommand(
      "compressors", "Compressor encode/decode throughput vs memcpy, and bits per element");
  cmd->add_option("--compressors", flags->compressors,
                  "comma-separated specs, e.g. none,fp16,qsgd:16,topk:0.01,ef (default: every "
                  "registered compressor)");
  cmd->add_option("--sizes", flags->sizes, "comma-separated element counts (K, M, G = 1024^k)")
      ->capture_default_str();
  cmd->add_option("--iters", flags->iters, "timed iterations")->capture_default_str();
  cmd->add_option("--warmup", flags->warmup, "untimed iterations")->capture_default_str();
  cmd->add_option("--profile", flags->profile,
                  "also write a codec profile (JSON) of every compressor to this file, for "
                  "--codec-cost profile:FILE");
  cmd->add_option("--profile-sizes", flags->profileSizes,
                  "the two element counts the profile is fitted on")
      ->capture_default_str();
  cmd->callback([flags] {
    runBench(*flags);
    if (!flags->profile.empty()) writeProfile(*flags);
  });
});

}  // namespace
}  // namespace tetrad::app
