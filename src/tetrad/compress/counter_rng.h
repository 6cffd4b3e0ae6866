// CounterRng: counter-based random numbers for the stochastic compressors
// (QSGD, TernGrad, natural compression).
//
// A stream is keyed by (seed, rank, step, salt): ranks draw independent
// numbers, and re-encoding the same step reproduces the same packet. Element
// i of a tensor uses the key of its block (i / kRngBlock, mixed with
// SplitMix64) and the counter i % kRngBlock, hashed by two keyed rounds of a
// 32-bit integer mixer (lowbias32), or by one round over a Weyl sequence
// (mixBits: the hot loops of QSGD and TernGrad). There is no sequential
// state, so the element loops vectorise and any block can be drawn
// independently.
//
// Plain values; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace tetrad {

constexpr size_t kRngBlock = 4096;

constexpr uint64_t splitMix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

constexpr uint32_t lowBias32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

class CounterRng {
 public:
  struct Key {
    uint32_t a = 0;
    uint32_t b = 0;
  };

  CounterRng(uint64_t seed, int rank, uint64_t step, uint64_t salt)
      : base_(splitMix64(splitMix64(splitMix64(seed ^ 0x7465747261640000ull) ^
                                    static_cast<uint64_t>(static_cast<uint32_t>(rank))) ^
                         step) ^
              splitMix64(salt)) {}

  // Key of block `block` (elements [block * kRngBlock, (block + 1) * kRngBlock)).
  Key blockKey(uint64_t block) const {
    uint64_t k = splitMix64(base_ + block * 0xd1b54a32d192ed03ull);
    return Key{static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)};
  }
  // 32 random bits for counter `counter` (< kRngBlock) of a block.
  static uint32_t bits(Key key, uint32_t counter) {
    return lowBias32(lowBias32(counter ^ key.a) ^ key.b);
  }
  // A cheaper stream (QSGD's rounding, TernGrad's Bernoulli draws): one
  // round of the mixer over the key xor the counter times the 32-bit golden
  // ratio (a Weyl sequence, so distinct counters of a block give distinct
  // inputs, and the mixer is a bijection). Two multiplies per element plus
  // one; the block key already separates (seed, rank, step, block). Full 32
  // bits, of which uniform() uses 24.
  static uint32_t mixBits(Key key, uint32_t counter) {
    return lowBias32(key.a ^ (counter * 0x9e3779b9u)) ^ key.b;
  }
  // Uniform in [0, 1) from 32 random bits (24 bits of precision).
  static float uniform(uint32_t bits) { return static_cast<float>(bits >> 8) * 0x1p-24f; }

 private:
  uint64_t base_;
};

}  // namespace tetrad
