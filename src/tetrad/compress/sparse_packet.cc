// Sparse packet encode/decode (see sparse_packet.h). Encode and decode are
// O(nnz) after the header; no communication.
#include "tetrad/compress/sparse_packet.h"

#include <cstring>

#include "tetrad/compress/packet_alloc.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

struct SparseView {
  size_t nnz = 0;
  const std::byte* indices = nullptr;
  const std::byte* values = nullptr;
  uint32_t index(size_t j) const {
    uint32_t value;
    std::memcpy(&value, indices + j * sizeof(uint32_t), sizeof(value));
    return value;
  }
  float value(size_t j) const {
    float v;
    std::memcpy(&v, values + j * sizeof(float), sizeof(v));
    return v;
  }
};

SparseView parse(ConstBytes packet, PacketKind kind, size_t count) {
  ByteReader reader(packet);
  readPacketHeader(reader, kind, count);
  SparseView view;
  view.nnz = reader.get<uint32_t>("sparse packet entry count");
  TETRAD_CHECK(view.nnz <= count, ProtocolError,
               "sparse packet (kind {}) claims {} entries for a tensor of {} elements",
               static_cast<int>(kind), view.nnz, count);
  view.indices = reader.getBytes(view.nnz * sizeof(uint32_t), "sparse packet indices").data();
  view.values = reader.getBytes(view.nnz * sizeof(float), "sparse packet values").data();
  reader.expectEnd("sparse packet");
  uint64_t previous = 0;
  for (size_t j = 0; j < view.nnz; ++j) {
    const uint32_t index = view.index(j);
    TETRAD_CHECK(index < count, ProtocolError,
                 "sparse packet (kind {}) entry {} has index {} outside [0, {})",
                 static_cast<int>(kind), j, index, count);
    TETRAD_CHECK(j == 0 || index > previous, ProtocolError,
                 "sparse packet (kind {}) indices not strictly ascending at entry {} ({} after {})",
                 static_cast<int>(kind), j, index, previous);
    previous = index;
  }
  return view;
}

ByteWriter startPacket(ByteBuffer& bytes, PacketKind kind, size_t count, size_t nnz) {
  TETRAD_CHECK(nnz <= count && count < (size_t{1} << 32), InvalidArgument,
               "sparse packet of {} entries over {} elements (need entries <= elements < 2^32)",
               nnz, count);
  reservePacket(bytes, sparsePacketBytes(nnz));
  ByteWriter writer(bytes);
  writePacketHeader(writer, kind, count);
  writer.put<uint32_t>(static_cast<uint32_t>(nnz));
  return writer;
}

}  // namespace

Packet writeSparsePacket(PacketKind kind, std::span<const float> dense,
                         std::span<const uint32_t> indices) {
  Packet packet;
  ByteWriter writer = startPacket(packet.bytes, kind, dense.size(), indices.size());
  writer.putBytes(asBytes(indices));
  std::byte* out = writer.grow(indices.size() * sizeof(float)).data();
  for (size_t j = 0; j < indices.size(); ++j) {
    std::memcpy(out + j * sizeof(float), &dense[indices[j]], sizeof(float));
  }
  return packet;
}

Packet writeSparsePacket(PacketKind kind, size_t count, std::span<const uint32_t> indices,
                         std::span<const float> values) {
  TETRAD_CHECK(indices.size() == values.size(), InvalidArgument,
               "sparse packet with {} indices and {} values", indices.size(), values.size());
  Packet packet;
  ByteWriter writer = startPacket(packet.bytes, kind, count, indices.size());
  writer.putBytes(asBytes(indices));
  writer.putBytes(asBytes(values));
  return packet;
}

void readSparsePacket(ConstBytes packet, PacketKind kind, size_t count, SparseEntries& out) {
  const SparseView view = parse(packet, kind, count);
  out.indices.resize(view.nnz);
  out.values.resize(view.nnz);
  if (view.nnz == 0) return;
  std::memcpy(out.indices.data(), view.indices, view.nnz * sizeof(uint32_t));
  std::memcpy(out.values.data(), view.values, view.nnz * sizeof(float));
}

void addSparsePacket(ConstBytes packet, PacketKind kind, std::span<float> output) {
  const SparseView view = parse(packet, kind, output.size());
  for (size_t j = 0; j < view.nnz; ++j) output[view.index(j)] += view.value(j);
}

}  // namespace tetrad
