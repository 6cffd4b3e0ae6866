// GradientAccumulator: the gradients a worker has added up since its last
// optimizer step under accum:K (sync/accumulate.h) — the per-run state of
// that policy, kept by the worker loop and saved in its checkpoints, so that
// a run stopped between two steps resumes with the same sum.
//
// add() sums one micro-batch's gradient; foldInto() turns the next
// micro-batch's gradient into the mean of all of them and empties the sum;
// drop() empties it without a step (a step the non-finite guard skips drops
// its whole group of micro-batches, as PyTorch's GradScaler does).
//
// Thread-safety: one worker's; not shared.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad {

class GradientAccumulator {
 public:
  // Micro-batches summed since the last step.
  int64_t pending() const { return count_; }
  // sum += gradient. InvalidArgument if its size differs from the last one's.
  void add(std::span<const float> gradient);
  // gradient = (sum + gradient) / (pending() + 1); the sum empties. Nothing
  // when nothing is pending.
  void foldInto(std::span<float> gradient);
  void drop();

  // The count and the sum, as bytes; load() throws ProtocolError on bytes
  // that are not a saved accumulator.
  void save(ByteWriter& out) const;
  void load(ByteReader& in);

 private:
  std::vector<float> sum_;
  int64_t count_ = 0;
};

}  // namespace tetrad
