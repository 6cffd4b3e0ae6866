// Dissemination barrier (barrier.h).
// Cost: ⌈log2 p⌉·α (empty messages), any p.
#include "tetrad/collectives/barrier.h"

#include <fmt/format.h>

#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"

namespace tetrad {

void barrier(Transport& transport, const CollectiveOptions& options) {
  checkCollectiveTag(transport, options.tag, "barrier");
  const int p = transport.size();
  const int rank = transport.rank();
  const CollectiveScope scope(transport, {"barrier", "dissemination", 0, "-", 0, options.tag});
  const auto run = [&](Transport& t, MutableBytes) {
    for (int distance = 1; distance < p; distance *= 2) {
      detail::sendRecv(t, (t.rank() + distance) % p, ConstBytes(), (t.rank() - distance + p) % p,
                       MutableBytes(), options.tag);
    }
  };
  detail::runWithContext(
      [&] {
        if (detail::runAnalytically(transport, "barrier", options.tag, 0, run)) return;
        run(transport, MutableBytes());
      },
      [&] { return fmt::format("rank {} of {}: barrier (tag {})", rank, p, options.tag); });
}

}  // namespace tetrad
