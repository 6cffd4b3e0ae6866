// ModelAnchor: a worker's model as it was after the last model average —
// the per-run state of Local SGD and post-local SGD (sync/local_sgd.h). At
// the end of a period the worker sends its change since the anchor, not its
// parameters (so that a compressor acts on the change), and the average of
// the changes is added back to the anchor; during post-local's BSP phase the
// anchor follows the parameters. Saved in the worker loop's checkpoints
// with save()/load(), so that a run stopped inside a period resumes with it.
//
// Thread-safety: one worker's; not shared.
#pragma once

#include <span>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad {

class ModelAnchor {
 public:
  // True once the anchor has been set (a policy without one never sets it).
  bool holds() const { return !values_.empty(); }
  size_t size() const { return values_.size(); }
  // The anchor becomes `params` (the run's start; a BSP step of post-local).
  void reset(std::span<const float> params);
  // change = params − anchor (resized to the parameters' count).
  void changeOf(std::span<const float> params, std::vector<float>& change) const;
  // params = anchor + change (the averaged change); the anchor becomes params.
  void applyAverage(std::span<float> params, std::span<const float> change);

  // The count, then the values; load() throws ProtocolError on bytes that
  // are not a saved anchor.
  void save(ByteWriter& out) const;
  void load(ByteReader& in);

 private:
  std::vector<float> values_;
};

}  // namespace tetrad
