// Partitioning of the training set across ranks, and each rank's sample
// order per epoch.
//
//   iid            every epoch, one global permutation of all samples, seeded
//                  by (--seed, epoch); rank r takes positions r, r+N, r+2N, ...
//                  (PyTorch's DistributedSampler scheme). Step k of N ranks
//                  with batch b therefore covers exactly the samples of step
//                  k of one rank with batch N*b: the basis of the BSP
//                  equivalence test.
//   dirichlet:A    non-iid: for every class, proportions p ~ Dirichlet(A,...,A)
//                  over the N ranks split that class's (shuffled) samples;
//                  small A gives each rank few classes. A rank's shard is
//                  fixed; each epoch visits it in a new seeded order, cycling
//                  when the epoch needs more samples than the shard holds.
//
// Every rank computes the same partition from (--seed, labels), so a rank's
// shard is deterministic given --seed and needs no communication. All ranks
// run the same number of steps per epoch: floor(samples / (N * batch)).
//
// Thread-safety: a ShardSampler is immutable after construction.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tetrad::train {

struct PartitionSpec {
  enum class Kind { kIid, kDirichlet } kind = Kind::kIid;
  double alpha = 0;  // Dirichlet concentration
  std::string toString() const;
};

// "iid" or "dirichlet:ALPHA" (ALPHA > 0). Throws InvalidArgument.
PartitionSpec parsePartition(const std::string& text);

// Steps per epoch for `samples` training samples; throws InvalidArgument when
// one global batch (workers * batch) does not fit in the training set.
int64_t stepsPerEpoch(size_t samples, int workers, int batch);

// The Dirichlet(alpha) split of `labels` over `workers` ranks: one index list
// per rank. Throws InvalidArgument when a rank would get no sample.
std::vector<std::vector<int64_t>> dirichletPartition(std::span<const uint8_t> labels,
                                                     int numClasses, int workers, double alpha,
                                                     uint64_t seed);

class ShardSampler {
 public:
  ShardSampler(std::span<const uint8_t> labels, int numClasses, int rank, int workers,
               const PartitionSpec& spec, uint64_t seed);

  // This rank's sample indices for `epoch`, in visiting order; at least
  // `length` of them.
  std::vector<int64_t> epochOrder(int64_t epoch, size_t length) const;
  // This rank's samples for the `steps` steps of `epoch` when every step
  // takes `globalBatch` samples over all ranks, `rankBatch` of them this
  // rank's: iid, step k covers positions [k*B, (k+1)*B) of the epoch's
  // permutation and the rank takes positions k*B + rank + workers*j,
  // j < rankBatch — with B = workers * rankBatch exactly epochOrder()'s
  // sequence, and with uneven shares (an elastic resize) still every sample
  // of a step once. Dirichlet: epochOrder() of steps * rankBatch samples.
  // `firstPosition` (batch_plan.h): the steps
  // start there instead of at 0 — the rest of an epoch after a resize that
  // changed the global batch (Dirichlet: the shard's order without the
  // firstPosition / globalBatch steps before it).
  std::vector<int64_t> stepOrder(int64_t epoch, int64_t steps, int64_t globalBatch, int rankBatch,
                                 int64_t firstPosition = 0) const;
  // Samples this rank owns (iid: its share of each epoch's permutation).
  size_t shardSize() const;

 private:
  size_t samples_;
  int rank_;
  int workers_;
  PartitionSpec spec_;
  uint64_t seed_;
  std::vector<int64_t> shard_;  // dirichlet only
};

}  // namespace tetrad::train
