// gTop-k (see gtopk.h). Communication: (⌈log2 q⌉ + 2·[p != q])·(α + (20 +
// 8k)β) per rank, q the largest power of two <= p; computation: one local
// selection over n plus O(k) per merge.
#include "tetrad/compress/gtopk.h"

#include <fmt/format.h>

#include <bit>

#include "tetrad/compress/topk.h"

namespace tetrad {
namespace {

constexpr Tag kFoldTag = 0;
constexpr Tag kUnfoldTag = 1;
constexpr Tag kDoublingTag = 2;

Packet toPacket(const SparseEntries& entries, size_t count) {
  return writeSparsePacket(PacketKind::kGTopK, count, entries.indices, entries.values);
}

void fromPacket(ConstBytes bytes, size_t count, size_t k, int peer, SparseEntries& out) {
  readSparsePacket(bytes, PacketKind::kGTopK, count, out);
  TETRAD_CHECK(out.indices.size() <= k, ProtocolError,
               "gtopk: rank {} sent {} entries, more than k = {} (n = {})", peer,
               out.indices.size(), k, count);
}

}  // namespace

void mergeTopK(const SparseEntries& a, const SparseEntries& b, size_t k, SparseEntries& out) {
  SparseEntries merged;
  merged.indices.reserve(a.indices.size() + b.indices.size());
  merged.values.reserve(a.indices.size() + b.indices.size());
  size_t i = 0, j = 0;
  while (i < a.indices.size() || j < b.indices.size()) {
    if (j == b.indices.size() || (i < a.indices.size() && a.indices[i] < b.indices[j])) {
      merged.indices.push_back(a.indices[i]);
      merged.values.push_back(a.values[i++]);
    } else if (i == a.indices.size() || b.indices[j] < a.indices[i]) {
      merged.indices.push_back(b.indices[j]);
      merged.values.push_back(b.values[j++]);
    } else {
      merged.indices.push_back(a.indices[i]);
      merged.values.push_back(a.values[i++] + b.values[j++]);
    }
  }
  if (merged.indices.size() <= k) {
    out = std::move(merged);
    return;
  }
  thread_local std::vector<uint32_t> positions;
  selectTopK(merged.values, k, SelectionMethod::kExact, positions);
  out.indices.resize(k);
  out.values.resize(k);
  for (size_t t = 0; t < k; ++t) {
    out.indices[t] = merged.indices[positions[t]];
    out.values[t] = merged.values[positions[t]];
  }
}

GTopK::GTopK(double ratio, SelectionMethod method) : ratio_(ratio), method_(method) {
  TETRAD_CHECK(ratio > 0 && ratio <= 1, InvalidArgument, "gtopk ratio must be in (0, 1], got {}",
               ratio);
}

std::string GTopK::spec() const {
  return fmt::format("gtopk:{}{}", ratio_, selectionSuffix(method_));
}

Packet GTopK::encodeStep(std::span<const float> input, CompressorState& state) const {
  const size_t n = input.size();
  std::vector<float>& residual = state.buffer("residual", n);
  for (size_t i = 0; i < n; ++i) residual[i] += input[i];
  thread_local std::vector<uint32_t> indices;
  selectTopK(residual, keptCount(n, ratio_), method_, indices);
  Packet packet = writeSparsePacket(PacketKind::kGTopK, residual, indices);
  for (uint32_t i : indices) residual[i] = 0;
  return packet;
}

void GTopK::decodeAdd(ConstBytes packet, std::span<float> output) const {
  addSparsePacket(packet, PacketKind::kGTopK, output);
}

double GTopK::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  return 8.0 * static_cast<double>(sparsePacketBytes(keptCount(count, ratio_))) /
         static_cast<double>(count);
}

void GTopK::aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                CompressorState& state, const ProtocolOptions& protocol) const {
  const Tag tag = protocol.tag;
  const size_t n = gradient.size();
  const size_t k = keptCount(n, ratio_);
  const int p = transport.size();
  const int rank = transport.rank();
  const bool payload = transport.carriesPayload();
  std::vector<float>& residual = state.buffer("residual", n);
  std::vector<uint32_t> local;
  SparseEntries current;
  timeCodec(protocol.codec, [&] {
    for (size_t i = 0; i < n; ++i) residual[i] += gradient[i];
    selectTopK(residual, k, method_, local);
    current.indices = local;
    current.values.resize(local.size());
    for (size_t t = 0; t < local.size(); ++t) current.values[t] = residual[local[t]];
  });

  SparseEntries received;
  auto mergeFrom = [&](const ByteBuffer& bytes, int peer) {
    if (!payload) return;  // payload-free simulation: sizes only, no data to merge
    timeCodec(protocol.codec, [&] {
      fromPacket(bytes, n, k, peer, received);
      mergeTopK(current, received, k, current);
    });
  };
  const int q = static_cast<int>(std::bit_floor(static_cast<unsigned>(p)));
  if (rank >= q) {
    const Packet mine = toPacket(current, n);
    transport.send(rank - q, tag + kFoldTag, mine.bytes);
    const ByteBuffer result = transport.recvMessage(rank - q, tag + kUnfoldTag);
    if (payload) fromPacket(result, n, k, rank - q, current);
  } else {
    if (rank + q < p) mergeFrom(transport.recvMessage(rank + q, tag + kFoldTag), rank + q);
    for (int mask = 1; mask < q; mask <<= 1) {
      const int partner = rank ^ mask;
      const Packet mine = toPacket(current, n);
      RequestPtr sent = transport.isend(partner, tag + kDoublingTag, mine.bytes);
      const ByteBuffer theirs = transport.recvMessage(partner, tag + kDoublingTag);
      sent->wait();
      mergeFrom(theirs, partner);
    }
    if (rank + q < p) {
      const Packet result = toPacket(current, n);
      transport.send(rank + q, tag + kUnfoldTag, result.bytes);
    }
  }

  // Residual: clear what this rank selected and the global selection kept.
  timeCodec(protocol.codec, [&] {
    size_t g = 0;
    for (uint32_t index : local) {
      while (g < current.indices.size() && current.indices[g] < index) ++g;
      if (g < current.indices.size() && current.indices[g] == index) residual[index] = 0;
    }
    std::fill(gradient.begin(), gradient.end(), 0.0f);
    for (size_t t = 0; t < current.indices.size(); ++t) {
      gradient[current.indices[t]] = current.values[t];
    }
  });
}

CompressorPtr makeGTopK(const CompressorParams& params) {
  params.expectParamCount(1, 2);
  const double ratio = params.ratio(0);
  params.expectKnown(1, {"exact", "approx"});
  return std::make_unique<GTopK>(ratio, parseSelectionMethod(params, 1));
}

}  // namespace tetrad
