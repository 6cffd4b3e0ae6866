// Variable-size byte all-gather over a ring (allgather.h: allgatherBytes).
//
// Cost for p ranks whose packets total n bytes (largest b):
//   T = (p-1)·α + Σ_step max over ranks of the forwarded packet · β
//     ≤ (p-1)·(α + bβ),  ≈ (p-1)α + (p-1)/p·nβ for equal sizes.
// No size exchange: each packet is one message of exactly its size and the
// receiver learns the size from the message (Transport::recvMessage), so
// the bytes counted are exactly the packets' bytes.
#include <fmt/format.h>

#include <optional>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/call_check.h"

namespace tetrad {

std::vector<ByteBuffer> allgatherBytes(Transport& transport, ConstBytes mine,
                                       const CollectiveOptions& options, bool othersWanted) {
  const int p = transport.size();
  const int rank = transport.rank();
  checkCollectiveTag(transport, options.tag, "byte all-gather");
  // Packets differ in size across ranks: the length is not compared.
  const CollectiveScope scope(transport, {"byte all-gather", "ring", 0, "bytes", 0, options.tag});
  std::vector<ByteBuffer> packets(static_cast<size_t>(p));
  if (p > 1) {
    // The analytic engine: payload-free, so zero-filled packets of the
    // ranks' sizes, as the simulator's payload-free receives give.
    std::optional<std::vector<uint64_t>> sizes;
    try {
      sizes = detail::allgatherBytesAnalytically(transport, mine.size(), options.tag);
    } catch (const Error&) {
      rethrowWithPrefix(fmt::format("rank {} of {}: byte all-gather of a {}-byte packet (tag {}): ",
                                    rank, p, mine.size(), options.tag));
    }
    if (sizes) {
      if (othersWanted)
        for (int r = 0; r < p; ++r) packets[size_t(r)] = ByteBuffer((*sizes)[size_t(r)]);
      packets[rank].assign(mine.begin(), mine.end());
      return packets;
    }
  }
  packets[rank].assign(mine.begin(), mine.end());
  if (p == 1) return packets;
  const int right = (rank + 1) % p;
  const int left = (rank + p - 1) % p;
  int step = 0;
  try {
    for (; step < p - 1; ++step) {
      // Forward the packet of rank - step (received in the previous step),
      // receive the packet of rank - step - 1.
      const int outgoing = (rank - step + p) % p;
      const int incoming = (rank - step - 1 + p) % p;
      RequestPtr send = transport.isend(right, options.tag, ConstBytes(packets[outgoing]));
      packets[incoming] = transport.recvMessage(left, options.tag);
      send->wait();
    }
  } catch (const Error&) {
    rethrowWithPrefix(
        fmt::format("rank {} of {}: byte all-gather of a {}-byte packet, step {} of "
                    "{} (tag {}): ",
                    rank, p, mine.size(), step + 1, p - 1, options.tag));
  }
  return packets;
}

}  // namespace tetrad
