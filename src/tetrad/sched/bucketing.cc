#include "tetrad/sched/bucketing.h"

namespace tetrad {

std::vector<BucketRange> fuseInOrder(std::span<const ParameterSlot> slots, uint64_t capBytes) {
  std::vector<BucketRange> buckets;
  BucketRange current;
  int tensorsInCurrent = 0;
  size_t offset = 0;
  auto close = [&] {
    if (current.count == 0) return;
    if (tensorsInCurrent != 1) current.shape.clear();
    buckets.push_back(std::move(current));
    current = BucketRange{};
    tensorsInCurrent = 0;
  };
  for (const ParameterSlot& slot : slots) {
    const uint64_t bytes = uint64_t(slot.count) * sizeof(float);
    if (current.count > 0 && current.count * sizeof(float) + bytes > capBytes) close();
    if (current.count == 0) {
      current.offset = offset;
      current.shape = slot.shape;
    }
    current.count += slot.count;
    current.tensorShapes.push_back(slot.shape.empty() ? std::vector<int64_t>{int64_t(slot.count)}
                                                      : slot.shape);
    current.names += (current.names.empty() ? "" : ",") + slot.name;
    ++tensorsInCurrent;
    offset += slot.count;
  }
  close();
  return buckets;
}

}  // namespace tetrad
