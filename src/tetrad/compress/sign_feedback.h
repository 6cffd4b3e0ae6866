// The sign-with-feedback pass shared by 1-bit SGD (onebit.h) and EFSignSGD
// (efsign.h), and the deferred residual both keep: encoding forms p = x + e
// and sends the signs of p with one or two reconstruction values; the state
// keeps p (buffers["residual"]) and the pairs its packet reconstructs with
// (buffers["residual_pending"]), so the true residual e = p − C(p) is formed
// only when asked (onebit.h explains why).
//
// Functions of a CompressorState owned by the caller; a state is used by
// one thread at a time.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "tetrad/compress/compressor.h"

namespace tetrad {

inline constexpr const char* kResidualPendingBuffer = "residual_pending";

// The true residual e = p − C(p) of a deferred-correction state (efsign and
// onebit, see above): buffers["residual"] corrected by
// buffers["residual_pending"], or a plain copy when nothing is pending. Empty
// when the state has no residual yet. Throws InvalidArgument (naming
// `owner`'s spec) when the pending pairs do not fit the residual.
std::vector<float> deferredResidual(const Compressor& owner, const CompressorState& state);

// Implementation shared by efsign and per-tensor onebit: one pass that
// applies the pending correction, forms the new p = x + e in
// buffers["residual"], packs the sign bits of p into `bits` and writes the
// reconstruction to `pairSlot` (efsign, absScale: one float ‖p‖₁/n; onebit:
// the positive and negative means) and to buffers["residual_pending"].
void encodeSignWithFeedback(std::span<const float> input, CompressorState& state, bool absScale,
                            MutableBytes pairSlot, MutableBytes bits);

// The reconstruction pairs of the previously sent packet (zero before the
// first encode, or for a state written before they were kept), checked
// against the group count; `who` names the compressor in the error.
std::vector<float> pendingPairs(const CompressorState& state, size_t groups, const char* who);

// sum / count, or 0 for an empty group.
float meanOr0(double sum, uint64_t count);

}  // namespace tetrad
