// Broadcast dispatch, names and argument checks (broadcast.h). The
// algorithms live in broadcast_binomial.cc and broadcast_scatter_allgather.cc.
#include "tetrad/collectives/broadcast.h"

#include <fmt/format.h>

#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"

namespace tetrad {

void broadcast(Transport& transport, MutableBytes data, const BroadcastOptions& options) {
  const int p = transport.size();
  checkCollectiveTag(transport, options.tag, "broadcast");
  TETRAD_CHECK(options.root >= 0 && options.root < p, InvalidArgument,
               "rank {}: broadcast from root {} in a world of {} ranks", transport.rank(),
               options.root, p);
  const CollectiveScope scope(transport, {"broadcast", toString(options.algorithm), data.size(),
                                          "bytes", options.root, options.tag});
  const auto run = [&](Transport& t, MutableBytes bytes) {
    if (options.algorithm == BroadcastAlgorithm::kBinomial) {
      detail::binomialBroadcast(t, detail::Group::world(t), bytes, options.root, options.tag);
    } else {
      detail::broadcastScatterAllgather(t, bytes, options.root, options.tag);
    }
  };
  detail::runWithContext(
      [&] {
        const std::string signature =
            fmt::format("broadcast {} of {} bytes from rank {}", toString(options.algorithm),
                        data.size(), options.root);
        if (detail::runAnalytically(transport, signature, options.tag, data.size(), run)) return;
        run(transport, data);
      },
      [&] {
        return fmt::format("rank {} of {}: {} broadcast of {} bytes from rank {} (tag {})",
                           transport.rank(), p, toString(options.algorithm), data.size(),
                           options.root, options.tag);
      });
}

void broadcast(Transport& transport, std::span<float> data, const BroadcastOptions& options) {
  broadcast(transport, asWritableBytes(data), options);
}

BroadcastAlgorithm parseBroadcastAlgorithm(std::string_view name) {
  if (name == "binomial" || name == "tree") return BroadcastAlgorithm::kBinomial;
  if (name == "scatter-allgather") return BroadcastAlgorithm::kScatterAllgather;
  TETRAD_FAIL(InvalidArgument,
              "unknown broadcast algorithm '{}' (valid: binomial, scatter-allgather)", name);
}

std::string toString(BroadcastAlgorithm algorithm) {
  return algorithm == BroadcastAlgorithm::kBinomial ? "binomial" : "scatter-allgather";
}

}  // namespace tetrad
