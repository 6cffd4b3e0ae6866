// reservePacket (see packet_alloc.h).
#include "tetrad/compress/packet_alloc.h"

#include <cstdint>
#include <cstring>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "tetrad/core/error.h"

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

MutableBytes startPacket(ByteBuffer& bytes, size_t size, PacketKind kind, uint64_t count,
                         uint16_t flags, CompressorState& state) {
  TETRAD_CHECK(bytes.empty() && size >= kPacketHeaderBytes, InvalidArgument,
               "startPacket: {} bytes requested into a buffer of {}", size, bytes.size());
  if (state.spare.capacity() > bytes.capacity()) {
    bytes = std::move(state.spare);  // keeps its size: resize() below fills only growth
    state.spare = ByteBuffer();
  }
  if (bytes.capacity() < size) {
    bytes.clear();  // nothing worth copying into the new allocation
    reservePacket(bytes, size);
  }
  bytes.resize(size);
  ByteBuffer header;
  header.reserve(kPacketHeaderBytes);
  ByteWriter writer(header);
  writePacketHeader(writer, kind, count, flags);
  std::memcpy(bytes.data(), header.data(), kPacketHeaderBytes);
  return MutableBytes(bytes.data() + kPacketHeaderBytes, size - kPacketHeaderBytes);
}

}  // namespace tetrad
