// Bucketing: the split of the flat gradient (or parameter) buffer into
// buckets that travel as one message each — a pure function, as PyTorch
// c10d's compute_bucket_assignment_by_size is.
//
// Parameters are described in parameter order by ParameterSlot (element
// count, shape, name); their values lie one after another in a flat buffer.
// fuseInOrder() makes runs of consecutive parameters of at most `capBytes`
// (a tensor is never split; a tensor larger than the cap is a bucket of its
// own; cap 0 gives one bucket per tensor). A bucket holding exactly one
// tensor keeps that tensor's shape; every bucket of whole tensors lists
// their shapes in `tensorShapes`, so that batched PowerSGD sees one matrix
// per tensor inside a fused bucket (compress/compressor.h, layout).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tetrad {

struct ParameterSlot {
  std::string name;
  size_t count = 0;            // float32 elements
  std::vector<int64_t> shape;  // the tensor's shape
};

struct BucketRange {
  size_t offset = 0;  // in floats, into the flat buffer
  size_t count = 0;
  std::vector<int64_t> shape;  // the tensor's shape when the bucket holds one tensor
  std::string names;           // the tensors it holds, for messages
  // The shapes of the whole tensors it holds, in order; empty for a chunk
  // of a tensor (priority's partitions).
  std::vector<std::vector<int64_t>> tensorShapes;
};

std::vector<BucketRange> fuseInOrder(std::span<const ParameterSlot> slots, uint64_t capBytes);

}  // namespace tetrad
