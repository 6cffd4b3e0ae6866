// The wire-precision sweep shared by the SimGrid tests
// (collectives_wire_test) and the MPI test binary (collectives_mpi_check
// --wire): every all-reduce algorithm at a 16-bit WirePrecision, on every
// length of the plan, for sum and average. Per case it demands
//   - bit-exactness with a reference that sums and rounds in the
//     algorithm's documented order (reference.h, `wire` argument),
//   - the documented error bound against a double-precision sum:
//     |got − exact| <= p·2^-10·Σ|x_r| + p·2^-24 (fp16), p·2^-7·Σ|x_r| (bf16),
//   - bit-identical results on every rank (hashes compared by an all-gather),
//   - exact results for small integers (every partial sum representable).
// Runs on one rank; every rank must call it with the same plan. Returns one
// line per failed case (empty: all passed).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/transport/transport.h"

namespace tetrad::testing {

struct WirePlan {
  std::vector<size_t> lengths;
  std::vector<WirePrecision> wires = {WirePrecision::kFloat16, WirePrecision::kBFloat16};
};

std::vector<std::string> runWireChecks(Transport& transport, const WirePlan& plan);

}  // namespace tetrad::testing
