// reservePacket(): capacity for a packet about to be written.
//
// A fresh multi-megabyte packet buffer comes from mmap and costs one page
// fault per 4 KiB page when first written, which on a VM can cost more than
// the encoding itself. For large packets the reserved range is marked for
// transparent huge pages (Linux madvise; a hint the kernel may ignore), so
// it faults in 2 MiB at a time.
//
// Better still is not to allocate at all: the overload taking a
// CompressorState starts the packet in the state's spare buffer, the
// capacity of a packet handed back with recyclePacket() (compressor.h) after
// the previous step, so a bucket's packet lives in the same warm pages
// iteration after iteration.
//
// Free functions; thread-safe for distinct buffers and states.
#pragma once

#include <cstddef>

#include "tetrad/compress/compressor.h"
#include "tetrad/core/bytes.h"

namespace tetrad {

void reservePacket(ByteBuffer& bytes, size_t size);
// Starts `bytes` (empty) as `state`'s spare buffer, then reserves `size`.
void reservePacket(ByteBuffer& bytes, size_t size, CompressorState& state);

}  // namespace tetrad
