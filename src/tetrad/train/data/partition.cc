#include "tetrad/train/data/partition.h"

#include <cmath>
#include <numeric>
#include <random>

#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/train/seeding.h"

namespace tetrad::train {
namespace {
// Stream ids for mixSeed.
constexpr uint64_t kIidStream = 0x1000;
constexpr uint64_t kDirichletStream = 0x2000;
constexpr uint64_t kShardOrderStream = 0x3000;
}  // namespace

std::string PartitionSpec::toString() const {
  return kind == Kind::kIid ? "iid" : fmt::format("dirichlet:{}", alpha);
}

PartitionSpec parsePartition(const std::string& text) {
  PartitionSpec spec;
  if (text == "iid") return spec;
  if (text.starts_with("dirichlet:")) {
    spec.kind = PartitionSpec::Kind::kDirichlet;
    spec.alpha = parseNumber(text.substr(10), "Dirichlet alpha");
    TETRAD_CHECK(spec.alpha > 0, InvalidArgument,
                 "invalid partition '{}': the Dirichlet alpha must be > 0", text);
    return spec;
  }
  TETRAD_FAIL(InvalidArgument, "invalid partition '{}': use iid or dirichlet:ALPHA (e.g. 0.5)",
              text);
}

int64_t stepsPerEpoch(size_t samples, int workers, int batch) {
  TETRAD_CHECK(workers > 0 && batch > 0, InvalidArgument, "invalid workers {} or batch size {}",
               workers, batch);
  int64_t steps = static_cast<int64_t>(samples / (size_t(workers) * batch));
  TETRAD_CHECK(steps > 0, InvalidArgument,
               "the global batch ({} workers x batch {}) is larger than the {} training samples; "
               "lower --batch-size or use more samples",
               workers, batch, samples);
  return steps;
}

std::vector<std::vector<int64_t>> dirichletPartition(std::span<const uint8_t> labels,
                                                     int numClasses, int workers, double alpha,
                                                     uint64_t seed) {
  std::mt19937_64 rng(mixSeed(seed, kDirichletStream));
  std::vector<std::vector<int64_t>> byClass(numClasses);
  for (size_t i = 0; i < labels.size(); ++i) byClass[labels[i]].push_back(int64_t(i));
  std::vector<std::vector<int64_t>> shards(workers);
  std::gamma_distribution<double> gamma(alpha, 1.0);
  for (auto& members : byClass) {
    shuffleInPlace(members, rng);
    std::vector<double> p(workers);
    double total = 0;
    for (double& v : p) total += (v = gamma(rng));
    // Cumulative cut points; the last rank takes the rest.
    size_t begin = 0;
    double cumulative = 0;
    for (int r = 0; r < workers; ++r) {
      cumulative += total > 0 ? p[r] / total : 1.0 / workers;
      size_t end = r + 1 == workers
                       ? members.size()
                       : std::min(members.size(),
                                  static_cast<size_t>(std::llround(cumulative * members.size())));
      end = std::max(end, begin);
      shards[r].insert(shards[r].end(), members.begin() + begin, members.begin() + end);
      begin = end;
    }
  }
  for (int r = 0; r < workers; ++r) {
    TETRAD_CHECK(!shards[r].empty(), InvalidArgument,
                 "the dirichlet:{} partition of {} samples leaves rank {} of {} without data; "
                 "use a larger alpha or more samples",
                 alpha, labels.size(), r, workers);
  }
  return shards;
}

ShardSampler::ShardSampler(std::span<const uint8_t> labels, int numClasses, int rank, int workers,
                           const PartitionSpec& spec, uint64_t seed)
    : samples_(labels.size()), rank_(rank), workers_(workers), spec_(spec), seed_(seed) {
  TETRAD_CHECK(workers > 0 && rank >= 0 && rank < workers, InvalidArgument,
               "invalid rank {} of {} workers", rank, workers);
  if (spec.kind == PartitionSpec::Kind::kDirichlet) {
    shard_ = std::move(dirichletPartition(labels, numClasses, workers, spec.alpha, seed)[rank]);
  }
}

size_t ShardSampler::shardSize() const {
  return spec_.kind == PartitionSpec::Kind::kIid ? samples_ / workers_ : shard_.size();
}

std::vector<int64_t> ShardSampler::stepOrder(int64_t epoch, int64_t steps, int64_t globalBatch,
                                             int rankBatch, int64_t firstPosition) const {
  const size_t length = size_t(steps) * size_t(rankBatch);
  TETRAD_CHECK(firstPosition >= 0 && globalBatch >= 1, InvalidArgument,
               "rank {} of {}: steps from position {} of a global batch of {}", rank_, workers_,
               firstPosition, globalBatch);
  if (spec_.kind != PartitionSpec::Kind::kIid) {
    // The shard's own order, without the steps before firstPosition.
    const size_t skipped = size_t(firstPosition / globalBatch) * size_t(rankBatch);
    std::vector<int64_t> order = epochOrder(epoch, skipped + length);
    order.erase(order.begin(), order.begin() + ptrdiff_t(skipped));
    return order;
  }
  TETRAD_CHECK(size_t(firstPosition) + size_t(steps) * size_t(globalBatch) <= samples_ &&
                   rankBatch >= 1 &&
                   int64_t(rank_) + int64_t(workers_) * (rankBatch - 1) < globalBatch,
               InvalidArgument,
               "rank {} of {}: {} steps of a global batch of {} ({} on this rank) from position {} "
               "do not fit {} samples",
               rank_, workers_, steps, globalBatch, rankBatch, firstPosition, samples_);
  std::vector<int64_t> permutation(samples_);
  std::iota(permutation.begin(), permutation.end(), 0);
  std::mt19937_64 rng(mixSeed(seed_, kIidStream + uint64_t(epoch)));
  shuffleInPlace(permutation, rng);
  std::vector<int64_t> order;
  order.reserve(length);
  for (int64_t k = 0; k < steps; ++k) {
    const int64_t start = firstPosition + k * globalBatch + rank_;
    for (int j = 0; j < rankBatch; ++j) {
      order.push_back(permutation[size_t(start + int64_t(workers_) * j)]);
    }
  }
  return order;
}

std::vector<int64_t> ShardSampler::epochOrder(int64_t epoch, size_t length) const {
  std::vector<int64_t> order;
  if (spec_.kind == PartitionSpec::Kind::kIid) {
    TETRAD_CHECK(length <= shardSize(), InvalidArgument,
                 "rank {}: an epoch needs {} samples, the iid shard has {}", rank_, length,
                 shardSize());
    std::vector<int64_t> permutation(samples_);
    std::iota(permutation.begin(), permutation.end(), 0);
    std::mt19937_64 rng(mixSeed(seed_, kIidStream + uint64_t(epoch)));
    shuffleInPlace(permutation, rng);
    order.resize(shardSize());
    for (size_t k = 0; k < order.size(); ++k) order[k] = permutation[k * workers_ + rank_];
    return order;
  }
  // Dirichlet: passes over the shard, each in its own seeded order.
  uint64_t pass = 0;
  while (order.size() < length || order.empty()) {
    std::vector<int64_t> visit = shard_;
    uint64_t stream = mixSeed(mixSeed(seed_, kShardOrderStream + uint64_t(epoch)), rank_);
    std::mt19937_64 rng(mixSeed(stream, pass++));
    shuffleInPlace(visit, rng);
    order.insert(order.end(), visit.begin(), visit.end());
  }
  return order;
}

}  // namespace tetrad::train
