// Element-wise float32 reductions used by the collectives, and the
// payload-free rule.
//
// Collectives combine received data with local data through these functions
// only, so that the arithmetic (and therefore the rounding) of every
// algorithm is explicit: addInto() computes acc[i] = acc[i] + in[i] (IEEE
// addition is commutative, so which side is "acc" does not change the bits;
// only the association order does, and each algorithm documents its order).
// The average is always the finished sum divided by the world size (a
// division, not a multiplication by 1/p), so that every algorithm's average
// is bit-exact with "its sum / p".
//
// Payload-free mode: when the transport does not carry payload (simulation
// of large worlds), received buffers hold no data; collectives then skip all
// arithmetic and copies on received data (computesOnData() == false) and
// receive directly into their destination instead of into scratch.
//
// Thread-safety: pure functions.
#pragma once

#include <span>

#include "tetrad/transport/transport.h"

namespace tetrad {

// acc[i] += in[i]; sizes must match.
void addInto(std::span<float> acc, std::span<const float> in);
// data[i] /= divisor.
void divideBy(std::span<float> data, float divisor);
// acc[i] = (acc[i] + in[i]) / divisor: addInto, then divideBy, in one pass
// (the same two roundings per element, so the same bits).
void addIntoThenDivide(std::span<float> acc, std::span<const float> in, float divisor);
// The final step of `op` on a finished sum over `worldSize` ranks: nothing
// for kSum, division by worldSize for kAverage.
void finishReduction(std::span<float> data, ReduceOp op, int worldSize);
// True when received data is real (see the header comment).
inline bool computesOnData(const Transport& transport) {
  return transport.carriesPayload();
}

}  // namespace tetrad
