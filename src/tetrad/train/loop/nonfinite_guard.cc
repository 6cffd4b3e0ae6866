// Non-finite guard (nonfinite_guard.h).
// Cost per iteration on W workers: ⌈log2 W⌉·α + 4(W-1)·β (recursive-doubling
// all-gather of one float per worker; +2α + 4(W+1)β when W is not a power of
// two), plus a local pass over the n gradient floats.
#include "tetrad/train/loop/nonfinite_guard.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "tetrad/collectives/allgather.h"

namespace tetrad::train {
namespace {

// The largest magnitude bit pattern of a range: at least 0x7f800000 exactly
// when the range holds a non-finite value, above it when one is a NaN. An
// integer max reduction, which the compiler vectorizes.
uint32_t largestMagnitudeBits(std::span<const float> values) {
  uint32_t largest = 0;
  for (float v : values) largest = std::max(largest, std::bit_cast<uint32_t>(v) & 0x7fffffffu);
  return largest;
}
constexpr uint32_t kInfinityBits = 0x7f800000u;

uint32_t codeOf(size_t tensor, bool infinite) {
  return uint32_t(1 + 2 * tensor + (infinite ? 1 : 0));
}

}  // namespace

NonFinitePolicy parseNonFinitePolicy(std::string_view text) {
  if (text == "stop") return NonFinitePolicy::kStop;
  if (text.starts_with("stop:")) {
    parseNonFiniteEvery(text);
    return NonFinitePolicy::kStop;
  }
  if (text == "skip") return NonFinitePolicy::kSkip;
  if (text == "off") return NonFinitePolicy::kOff;
  TETRAD_FAIL(InvalidArgument, "invalid --on-nonfinite '{}': use stop, stop:K, skip or off", text);
}

int64_t parseNonFiniteEvery(std::string_view text) {
  if (!text.starts_with("stop:")) return 1;
  const std::string k(text.substr(5));
  char* end = nullptr;
  const long long every = k.empty() ? 0 : std::strtoll(k.c_str(), &end, 10);
  TETRAD_CHECK(!k.empty() && end != nullptr && *end == '\0' && every >= 1, InvalidArgument,
               "invalid --on-nonfinite '{}': K of stop:K must be an integer >= 1", text);
  return every;
}

std::string toString(NonFinitePolicy policy) {
  switch (policy) {
    case NonFinitePolicy::kStop:
      return "stop";
    case NonFinitePolicy::kSkip:
      return "skip";
    case NonFinitePolicy::kOff:
      break;
  }
  return "off";
}

std::string NonFiniteFinding::describe(int64_t iteration) const {
  return fmt::format("non-finite {} ({}) on rank {} at iteration {}{}",
                     tensor == "loss" ? "loss" : "gradient", infinite ? "Inf" : "NaN", rank,
                     iteration, tensor == "loss" ? "" : " in tensor " + tensor);
}

uint32_t nonFiniteCode(double loss, std::span<const float> gradients,
                       std::span<const ParameterSlot> slots) {
  if (!std::isfinite(loss)) return codeOf(0, std::isinf(loss));
  if (largestMagnitudeBits(gradients) < kInfinityBits) return 0;
  size_t offset = 0;
  for (size_t s = 0; s < slots.size(); ++s) {
    const uint32_t largest = largestMagnitudeBits(gradients.subspan(offset, slots[s].count));
    offset += slots[s].count;
    if (largest >= kInfinityBits) return codeOf(1 + s, largest == kInfinityBits);
  }
  // Values past the last slot (none in a FlatModel): name the buffer.
  return codeOf(1 + slots.size(), false);
}

NonFiniteGuard::NonFiniteGuard(Transport& workers, Tag tag, std::vector<ParameterSlot> slots,
                               NonFinitePolicy policy, int64_t every)
    : workers_(workers), tag_(tag), slots_(std::move(slots)), policy_(policy), every_(every) {
  // Codes travel as floats: exact below 2^24.
  TETRAD_CHECK(2 * slots_.size() + 4 < (size_t(1) << 24), Unsupported,
               "the non-finite guard names at most 2^23 tensors, the model has {}", slots_.size());
  if (const char* hook = std::getenv("TETRAD_TEST_NONFINITE")) {
    long long rank = -1, iteration = -1;
    char kind[4] = {};
    const int fields = std::sscanf(hook, "%lld:%lld:%3s", &rank, &iteration, kind);
    TETRAD_CHECK(fields >= 2 && rank >= 0 && iteration >= 1, InvalidArgument,
                 "invalid TETRAD_TEST_NONFINITE '{}': use RANK:ITERATION[:inf]", hook);
    injectRank_ = int(rank);
    injectIteration_ = iteration;
    injectInf_ = fields == 3 && std::string_view(kind) == "inf";
  }
}

uint32_t NonFiniteGuard::codeAt(double loss, int64_t firstBad, bool isInf) const {
  if (!std::isfinite(loss)) return codeOf(0, std::isinf(loss));
  if (firstBad < 0) return 0;
  size_t offset = 0;
  for (size_t s = 0; s < slots_.size(); ++s) {
    offset += slots_[s].count;
    if (size_t(firstBad) < offset) return codeOf(1 + s, isInf);
  }
  return codeOf(1 + slots_.size(), false);
}

NonFiniteFinding NonFiniteGuard::findingOf(int rank, uint32_t code) const {
  const size_t tensor = (code - 1) / 2;
  NonFiniteFinding finding;
  finding.rank = rank;
  finding.infinite = (code - 1) % 2 == 1;
  if (tensor == 0) {
    finding.tensor = "loss";
  } else if (tensor - 1 < slots_.size()) {
    finding.tensor = slots_[tensor - 1].name;
  } else {
    finding.tensor = "gradient buffer";
  }
  return finding;
}

bool NonFiniteGuard::inject(int64_t iteration, std::span<float> gradients) const {
  // Once per iteration: the loop writes it before a ridden exchange, and the
  // round that follows must read the code found then, not rescan the
  // exchanged values.
  if (workers_.rank() != injectRank_ || iteration != injectIteration_ || gradients.empty() ||
      injectedAt_ == iteration) {
    return false;
  }
  injectedAt_ = iteration;
  gradients[0] =
      injectInf_ ? std::numeric_limits<float>::infinity() : std::numeric_limits<float>::quiet_NaN();
  return true;
}

std::optional<NonFiniteFinding> NonFiniteGuard::checkLocal(int64_t iteration, double loss,
                                                           std::span<float> gradients) {
  inject(iteration, gradients);
  const uint32_t code = nonFiniteCode(loss, gradients, slots_);
  if (code == 0) return std::nullopt;
  return findingOf(workers_.rank(), code);
}

std::optional<NonFiniteFinding> NonFiniteGuard::agree(int64_t iteration, double loss,
                                                      std::span<float> gradients,
                                                      bool stopRequested,
                                                      std::optional<uint32_t> scanned) {
  const bool injected = inject(iteration, gradients);
  const uint32_t code = scanned && !injected ? *scanned : nonFiniteCode(loss, gradients, slots_);
  const float mine = float(code * 2 + (stopRequested ? 1 : 0));
  std::vector<float> codes(size_t(workers_.size()), 0.0f);
  allgather(workers_, std::span<const float>(&mine, 1), codes,
            {AllgatherAlgorithm::kRecursiveDoubling, tag_});
  if (!workers_.carriesPayload()) codes.assign(codes.size(), 0.0f);  // sizes only
  codes[size_t(workers_.rank())] = mine;
  std::optional<NonFiniteFinding> finding;
  stopAgreed_ = false;
  for (int r = 0; r < workers_.size(); ++r) {
    const float value = codes[size_t(r)];
    TETRAD_CHECK(value >= 0.0f && value < float(1 << 24) && value == std::floor(value),
                 ProtocolError, "rank {}: non-finite guard: rank {} sent the invalid code {}",
                 workers_.rank(), r, value);
    const auto received = uint32_t(value);
    stopAgreed_ = stopAgreed_ || (received & 1u) != 0;
    if (received >= 2 && !finding) finding = findingOf(r, received / 2);
  }
  return finding;
}

bool agreeOnStop(Transport& workers, Tag tag, bool stopRequested) {
  const float mine = stopRequested ? 1.0f : 0.0f;
  std::vector<float> flags(size_t(workers.size()), 0.0f);
  allgather(workers, std::span<const float>(&mine, 1), flags,
            {AllgatherAlgorithm::kRecursiveDoubling, tag});
  if (!workers.carriesPayload()) flags.assign(flags.size(), 0.0f);
  flags[size_t(workers.rank())] = mine;
  for (float flag : flags) {
    if (flag != 0.0f) return true;
  }
  return false;
}

}  // namespace tetrad::train
