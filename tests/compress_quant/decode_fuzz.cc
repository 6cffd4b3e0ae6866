// Fuzz target for every registered decoder.
//
// Input: byte 0 picks a compressor spec (fuzzSpecs(), modulo), bytes 1-2 the
// element count (little-endian, modulo 5000), the rest is the packet. The
// decoder must accept it or throw ProtocolError; anything else (another
// exception, a crash, a write outside the output) is a finding.
//
// Built as a libFuzzer target when the compiler is clang with
// -fsanitize=fuzzer (run: compress_decode_fuzz [-runs=N] [CORPUS_DIR]).
// Otherwise (TETRAD_FUZZ_DRIVER) it is a plain program:
//   compress_decode_fuzz                  replays its built-in corpus: valid
//                                         packets of every spec and sizes,
//                                         plus deterministic mutations
//   compress_decode_fuzz FILE|DIR...      replays the given inputs
//   compress_decode_fuzz --write-corpus DIR  writes the valid packets as
//                                         seed files for libFuzzer
#include <cstdint>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "fuzz_common.h"
#include "quant_test_util.h"

namespace {

using tetrad::ByteBuffer;
using tetrad::CompressorPtr;

struct Target {
  std::vector<std::string> specs;
  std::vector<CompressorPtr> compressors;
};

const Target& target() {
  static const Target t = [] {
    Target result;
    result.specs = tetrad::testing::fuzzSpecs();
    for (const std::string& spec : result.specs) {
      result.compressors.push_back(tetrad::makeCompressor(spec));
    }
    return result;
  }();
  return t;
}

int runOne(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  const Target& t = target();
  const tetrad::Compressor& compressor = *t.compressors[data[0] % t.compressors.size()];
  const size_t count = (static_cast<size_t>(data[1]) | (static_cast<size_t>(data[2]) << 8)) % 5000;
  auto packet = std::as_bytes(std::span<const uint8_t>(data + 3, size - 3));
  try {
    tetrad::testing::decodeGuarded(compressor, packet, count);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "decoding '%s' (%zu elements, %zu bytes) threw: %s\n",
                 compressor.spec().c_str(), count, packet.size(), e.what());
    std::abort();
  }
  return 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return runOne(data, size);
}

#if defined(TETRAD_FUZZ_DRIVER)
namespace {

// Seed inputs: a valid packet of every spec for a few sizes.
std::vector<std::vector<uint8_t>> seedCorpus() {
  std::vector<std::vector<uint8_t>> corpus;
  const Target& t = target();
  for (size_t index = 0; index < t.compressors.size(); ++index) {
    for (size_t n : {0, 1, 17, 300, 1000, 4097}) {
      tetrad::CompressorState state = tetrad::testing::fuzzState(t.specs[index], n);
      std::vector<float> x = tetrad::testing::gaussian(n, n);
      ByteBuffer packet = t.compressors[index]->encode(x, state).bytes;
      std::vector<uint8_t> input = {static_cast<uint8_t>(index), static_cast<uint8_t>(n & 0xff),
                                    static_cast<uint8_t>(n >> 8)};
      for (std::byte b : packet) input.push_back(static_cast<uint8_t>(b));
      corpus.push_back(std::move(input));
    }
  }
  return corpus;
}

void replay(const std::vector<uint8_t>& input) {
  runOne(input.data(), input.size());
}

std::vector<uint8_t> readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::string(argv[1]) == "--write-corpus") {
      std::filesystem::create_directories(argv[2]);
      std::vector<std::vector<uint8_t>> corpus = seedCorpus();
      for (size_t i = 0; i < corpus.size(); ++i) {
        std::ofstream out(std::filesystem::path(argv[2]) / ("seed_" + std::to_string(i)),
                          std::ios::binary);
        out.write(reinterpret_cast<const char*>(corpus[i].data()),
                  static_cast<std::streamsize>(corpus[i].size()));
      }
      std::printf("wrote %zu seed inputs to %s\n", corpus.size(), argv[2]);
      return 0;
    }
    size_t inputs = 0;
    if (argc > 1) {
      for (int a = 1; a < argc; ++a) {
        std::filesystem::path path(argv[a]);
        if (std::filesystem::is_directory(path)) {
          for (const auto& entry : std::filesystem::directory_iterator(path)) {
            replay(readFile(entry.path()));
            ++inputs;
          }
        } else {
          replay(readFile(path));
          ++inputs;
        }
      }
    } else {
      std::mt19937_64 generator(2024);
      for (const std::vector<uint8_t>& seed : seedCorpus()) {
        replay(seed);
        ++inputs;
        for (int m = 0; m < 100; ++m) {
          std::vector<uint8_t> input = seed;
          switch (m % 4) {
            case 0:  // flip bits past the selector bytes
              for (int f = 0; f < 1 + m % 3 && input.size() > 3; ++f) {
                input[3 + generator() % (input.size() - 3)] ^= 1u << (generator() % 8);
              }
              break;
            case 1:  // truncate
              input.resize(3 + generator() % (input.size() - 2));
              break;
            case 2:  // random tail
              input.resize(std::min<size_t>(input.size(), 3 + 16 + generator() % 16));
              for (size_t k = generator() % 64; k > 0; --k) input.push_back(generator() & 0xff);
              break;
            default:  // another element count
              input[1] = static_cast<uint8_t>(generator());
              break;
          }
          replay(input);
          ++inputs;
        }
      }
    }
    std::printf("compress_decode_fuzz: %zu inputs replayed over %zu specs, no findings\n", inputs,
                target().specs.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "compress_decode_fuzz: %s\n", e.what());
    return 1;
  }
}
#endif
