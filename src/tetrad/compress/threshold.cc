// Threshold (see threshold.h). Encode: one vectorised pass (selection.cc) +
// O(nnz) packet write; decode O(nnz). Gather aggregation: each rank receives
// sum over peers of (20 + 8·nnz_r) bytes.
#include "tetrad/compress/threshold.h"

#include <fmt/format.h>

#include <cmath>

#include "tetrad/compress/selection.h"
#include "tetrad/compress/sparse_packet.h"

namespace tetrad {

Threshold::Threshold(float threshold) : threshold_(threshold) {
  TETRAD_CHECK(std::isfinite(threshold) && threshold > 0, InvalidArgument,
               "threshold must be a finite number > 0, got {}", threshold);
}

std::string Threshold::spec() const {
  return fmt::format("threshold:{}", threshold_);
}

Packet Threshold::encodeStep(std::span<const float> input, CompressorState& state) const {
  thread_local std::vector<uint32_t> indices;
  selectAtLeast(input, threshold_, indices);
  return writeSparsePacket(PacketKind::kThreshold, input, indices);
}

void Threshold::decodeAdd(ConstBytes packet, std::span<float> output) const {
  addSparsePacket(packet, PacketKind::kThreshold, output);
}

double Threshold::bitsPerElement(size_t count) const {
  if (count == 0) return 0;
  return 8.0 * static_cast<double>(sparsePacketBytes(count)) / static_cast<double>(count);
}

CompressorPtr makeThreshold(const CompressorParams& params) {
  params.expectParamCount(1, 1);
  const double threshold = params.positiveNumber(0, "threshold");
  if (threshold > 3.4e38) params.fail("threshold must fit a float32");
  return std::make_unique<Threshold>(static_cast<float>(threshold));
}

}  // namespace tetrad
