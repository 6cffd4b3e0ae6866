// reservePacket(): capacity for a packet about to be written.
//
// A fresh multi-megabyte packet buffer comes from mmap and costs one page
// fault per 4 KiB page when first written, which on a VM can cost more than
// the encoding itself. For large packets the reserved range is marked for
// transparent huge pages (Linux madvise; a hint the kernel may ignore), so
// it faults in 2 MiB at a time.
//
// Free function; thread-safe.
#pragma once

#include <cstddef>

#include "tetrad/core/bytes.h"

namespace tetrad {

void reservePacket(ByteBuffer& bytes, size_t size);

}  // namespace tetrad
