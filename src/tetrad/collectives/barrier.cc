// Dissemination barrier (barrier.h).
// Cost: ⌈log2 p⌉·α (empty messages), any p.
#include "tetrad/collectives/barrier.h"

#include <fmt/format.h>

#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"

namespace tetrad {

void barrier(Transport& transport, const CollectiveOptions& options) {
  checkCollectiveTag(transport, options.tag, "barrier");
  const int p = transport.size();
  const int rank = transport.rank();
  const CollectiveScope scope(transport, {"barrier", "dissemination", 0, "-", 0, options.tag});
  detail::runWithContext(
      [&] {
        for (int distance = 1; distance < p; distance *= 2) {
          detail::sendRecv(transport, (rank + distance) % p, ConstBytes(),
                           (rank - distance + p) % p, MutableBytes(), options.tag);
        }
      },
      [&] { return fmt::format("rank {} of {}: barrier (tag {})", rank, p, options.tag); });
}

}  // namespace tetrad
