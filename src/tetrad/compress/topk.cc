// Top-k (see topk.h). Encode: one selection (selection.cc: ~1 streaming pass
// approx, 3 exact) + O(k) packet write; decode O(k). No communication here;
// with gather aggregation each rank receives (p-1)·(20 + 8k) bytes.
#include "tetrad/compress/topk.h"

#include <fmt/format.h>

#include "tetrad/compress/sparse_packet.h"

namespace tetrad {

TopK::TopK(double ratio, SelectionMethod method) : ratio_(ratio), method_(method) {
  TETRAD_CHECK(ratio > 0 && ratio <= 1, InvalidArgument, "topk ratio must be in (0, 1], got {}",
               ratio);
}

std::string TopK::spec() const {
  return fmt::format("topk:{}{}", ratio_, selectionSuffix(method_));
}

Packet TopK::encodeStep(std::span<const float> input, CompressorState& state) const {
  thread_local std::vector<uint32_t> indices;
  selectTopK(input, keptCount(input.size(), ratio_), method_, indices);
  return writeSparsePacket(PacketKind::kTopK, input, indices);
}

void TopK::decodeAdd(ConstBytes packet, std::span<float> output) const {
  addSparsePacket(packet, PacketKind::kTopK, output);
}

double TopK::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  return 8.0 * static_cast<double>(sparsePacketBytes(keptCount(count, ratio_))) /
         static_cast<double>(count);
}

SelectionMethod parseSelectionMethod(const CompressorParams& params, size_t skip) {
  const bool exact = params.hasFlag("exact", skip);
  if (exact && params.hasFlag("approx", skip)) params.fail("choose one of 'exact' and 'approx'");
  return exact ? SelectionMethod::kExact : SelectionMethod::kApprox;
}

std::string selectionSuffix(SelectionMethod method) {
  return method == SelectionMethod::kExact ? ":exact" : "";
}

CompressorPtr makeTopK(const CompressorParams& params) {
  params.expectParamCount(1, 2);
  const double ratio = params.ratio(0);
  params.expectKnown(1, {"exact", "approx"});
  return std::make_unique<TopK>(ratio, parseSelectionMethod(params, 1));
}

}  // namespace tetrad
