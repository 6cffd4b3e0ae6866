// Sparse packets: the wire format shared by Top-k, threshold, DGC and gTop-k.
//
// After the 16-byte packet header (compressor.h; its count is the dense
// length n) a sparse packet holds
//   u32 nnz, u32 indices[nnz] (strictly ascending, each < n), f32 values[nnz]
// so it costs exactly 16 + 4 + 8·nnz bytes: 64 bits per kept element. Plain
// 32-bit indices (rather than delta-coded varints, ~40 bits at 1% density)
// keep encode and decode branch-free and the size a function of nnz alone,
// which the cost model and the byte counters rely on.
//
// readSparsePacket() validates everything before anything is written: kind,
// version, count, nnz <= n, exact byte length, indices strictly ascending
// (so no duplicates) and in range; a violation is a ProtocolError.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/compress/compressor.h"

namespace tetrad {

constexpr size_t kSparsePacketFixedBytes = kPacketHeaderBytes + sizeof(uint32_t);
constexpr size_t kSparseBytesPerEntry = sizeof(uint32_t) + sizeof(float);

// Exact size of a sparse packet with `nnz` entries.
constexpr size_t sparsePacketBytes(size_t nnz) {
  return kSparsePacketFixedBytes + kSparseBytesPerEntry * nnz;
}

// Packet of (indices[j], dense[indices[j]]); `indices` must be strictly
// ascending and < dense.size() (the caller's selection guarantees it).
Packet writeSparsePacket(PacketKind kind, std::span<const float> dense,
                         std::span<const uint32_t> indices);
// Packet of explicit (indices[j], values[j]) pairs over a tensor of `count`.
Packet writeSparsePacket(PacketKind kind, size_t count, std::span<const uint32_t> indices,
                         std::span<const float> values);

// Validates `packet` and returns its entries (views are copied out).
struct SparseEntries {
  std::vector<uint32_t> indices;
  std::vector<float> values;
};
void readSparsePacket(ConstBytes packet, PacketKind kind, size_t count, SparseEntries& out);

// Validates `packet` and adds its entries into `output` (size = count).
void addSparsePacket(ConstBytes packet, PacketKind kind, std::span<float> output);

}  // namespace tetrad
