// Collective call checks: before a collective runs, every rank agrees on a
// fingerprint of the call, so that a mismatch between ranks (another length,
// algorithm, element type, operation or a skipped call) is an error naming
// both ranks and both calls instead of a hang, a wrong result or a timeout
// (as PyTorch's TORCH_DISTRIBUTED_DEBUG=DETAIL does for c10d).
//
// CollectiveScope is built at the entry of every public collective
// (allreduce, allgather(v), allgathervBytes, allgatherBytes, broadcast,
// reduceScatter, barrier), of aggregate() (compress/aggregate.h) and of the
// exchanges that all workers call together over point-to-point messages:
// the parameter server's average() ("exchange average": bucket and stream)
// and gossip's mixModels() ("model mix": step). It
//   - sets the activity label of the call's tag range (stall reports,
//     transport/diagnostics.h), always;
//   - when the transport's diagnostics have checkCollectives() on (the
//     trainer sets it from --check-collectives; tests set it directly) and
//     the transport has more than one rank, takes the next sequence number
//     of the call's tag and runs agreeOnCall().
//
// agreeOnCall() all-gathers fixed-size fingerprints (96 bytes) by recursive
// doubling on tags [tag + kCallCheckTagOffset, tag + kCollectiveTagSpan),
// which no collective algorithm uses, and compares every rank's with rank
// 0's: every rank sees the same records, so every rank throws the same
// ProtocolError "collective call mismatch: rank 0 calls ... but rank R calls
// ...". Cost per checked call: ⌈log2 p⌉·α + (p-1)·96·β (+2α + 96(p+1)β
// when p is not a power of two).
//
// Not detected: ranks calling with different tags never meet on the check's
// tags (the stall report and the timeout name the tag each rank waits on);
// payload-free simulation carries no fingerprints, so nothing is compared.
// allgatherBytes contributes packets of any size: its length is not compared.
//
// Thread-safety: as the collectives (one call at a time per tag range).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/transport/diagnostics.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

// The check uses tags [tag + kCallCheckTagOffset, tag + kCollectiveTagSpan).
constexpr Tag kCallCheckTagOffset = kCollectiveTagSpan - 3;

struct CallFingerprint {
  std::string operation;    // "all-reduce", "broadcast", "aggregate", "exchange average", ...
  std::string algorithm;    // "ring", "binomial", ... (at most 23 bytes compared)
  uint64_t length = 0;      // elements or bytes every rank passes alike
  std::string elementType;  // "fp32", "bytes", a compressor spec (at most 39 bytes)
  int64_t detail = 0;       // root (broadcast), reduce op (0 sum, 1 average),
                            // 2·bucket + stream (exchange average) or step (model mix)
  Tag tag = 0;
  uint64_t sequence = 0;  // of checked calls on this tag, on this rank
};

// "all-reduce #3 (ring, 1000 x fp32, sum, tag 100)" (without "#3" unless
// `withSequence`).
std::string describe(const CallFingerprint& call, bool withSequence = true);

// Compares `call` with every rank's; see the header comment.
void agreeOnCall(Transport& transport, const CallFingerprint& call);

class CollectiveScope {
 public:
  CollectiveScope(Transport& transport, CallFingerprint call, Tag span = kCollectiveTagSpan);
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;

 private:
  std::optional<ActivityLabel> label_;
};

}  // namespace tetrad
