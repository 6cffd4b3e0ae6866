// reservePacket (see packet_alloc.h).
#include "tetrad/compress/packet_alloc.h"

#include <cstdint>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace tetrad {

void reservePacket(ByteBuffer& bytes, size_t size) {
  bytes.reserve(size);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr size_t kHugePage = size_t{2} << 20;
  if (size < 2 * kHugePage || !bytes.empty()) return;
  const auto begin = reinterpret_cast<uintptr_t>(bytes.data());
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t last = (begin + size) & ~(kHugePage - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
#endif
}

void reservePacket(ByteBuffer& bytes, size_t size, CompressorState& state) {
  if (bytes.empty() && state.spare.capacity() > bytes.capacity()) {
    bytes = std::move(state.spare);
    bytes.clear();
    state.spare = ByteBuffer();
  }
  reservePacket(bytes, size);
}

}  // namespace tetrad
