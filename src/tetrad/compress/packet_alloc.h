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
// iteration after iteration. startPacket() goes one step further for
// packets whose every byte the encoder writes itself: it keeps the recycled
// buffer's old bytes instead of clearing and zero-filling them (ByteWriter::
// grow() value-initialises what it appends, a whole extra write pass over a
// multi-megabyte payload), so a steady-state encode writes each byte once.
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

// Makes `bytes` (empty) a packet of exactly `size` >= kPacketHeaderBytes
// bytes, in `state`'s spare buffer when it has one, writes the packet header
// (writePacketHeader()) into its first kPacketHeaderBytes and returns the rest.
// The returned bytes are NOT zeroed (stale bytes of the recycled packet): the
// caller must overwrite every one of them.
MutableBytes startPacket(ByteBuffer& bytes, size_t size, PacketKind kind, uint64_t count,
                         uint16_t flags, CompressorState& state);

}  // namespace tetrad
