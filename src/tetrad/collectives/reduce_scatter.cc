// Reduce-scatter dispatch, names and argument checks (reduce_scatter.h).
// The algorithms live in reduce_scatter_ring.cc and
// reduce_scatter_halving.cc.
#include "tetrad/collectives/reduce_scatter.h"

#include <fmt/format.h>

#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/collectives/reduce_ops.h"

namespace tetrad {
namespace {

// Halving, then rank 2i hands block 2i+1 to rank 2i+1 (i < rem).
void reduceScatterHalving(Transport& transport, std::span<float> data, ReduceOp op, Tag tag) {
  const int p = transport.size();
  const int rank = transport.rank();
  const detail::PowerOfTwoFold fold(p);
  detail::WireImage image(transport, WirePrecision::kFloat32, data);
  detail::halvingReduceScatter(transport, fold, image, tag);  // tags tag .. tag + 2
  const int v = fold.participant(rank);
  if (v >= 0 && computesOnData(transport)) {
    const BlockRange mine = fold.span(data.size(), v, v + 1);
    finishReduction(data.subspan(mine.offset, mine.count), op, p);
  }
  if (fold.folded(rank)) {
    const BlockRange odd = blockRange(data.size(), p, rank | 1);
    std::span<float> block = data.subspan(odd.offset, odd.count);
    if (rank % 2 == 0) {
      transport.send(rank + 1, tag + 3, asBytes(std::span<const float>(block)));
    } else {
      transport.recv(rank - 1, tag + 3, asWritableBytes(block));
    }
  }
}

}  // namespace

void reduceScatter(Transport& transport, std::span<float> data,
                   const ReduceScatterOptions& options) {
  const int p = transport.size();
  checkCollectiveTag(transport, options.tag, "reduce-scatter");
  const CollectiveScope scope(transport,
                              {"reduce-scatter", toString(options.algorithm), data.size(), "fp32",
                               options.op == ReduceOp::kSum ? 0 : 1, options.tag});
  const auto run = [&](Transport& t, std::span<float> values) {
    if (options.algorithm == ReduceScatterAlgorithm::kRing) {
      detail::WireImage image(t, WirePrecision::kFloat32, values);
      detail::ringReduceScatter(t, detail::Group::world(t), image, options.tag);
      const BlockRange mine = blockRange(values.size(), p, t.rank());
      if (computesOnData(t))
        finishReduction(values.subspan(mine.offset, mine.count), options.op, p);
    } else {
      reduceScatterHalving(t, values, options.op, options.tag);
    }
  };
  detail::runWithContext(
      [&] {
        const std::string signature =
            fmt::format("reduce-scatter {} of {} floats, {}", toString(options.algorithm),
                        data.size(), options.op == ReduceOp::kSum ? "sum" : "average");
        if (detail::runAnalytically(
                transport, signature, options.tag, data.size_bytes(),
                [&](Transport& t, MutableBytes scratch) {
                  run(t, {reinterpret_cast<float*>(scratch.data()), data.size()});
                })) {
          return;
        }
        run(transport, data);
      },
      [&] {
        return fmt::format("rank {} of {}: {} reduce-scatter of {} floats (tag {})",
                           transport.rank(), p, toString(options.algorithm), data.size(),
                           options.tag);
      });
}

ReduceScatterAlgorithm parseReduceScatterAlgorithm(std::string_view name) {
  if (name == "ring") return ReduceScatterAlgorithm::kRing;
  if (name == "halving" || name == "recursive-halving") {
    return ReduceScatterAlgorithm::kRecursiveHalving;
  }
  TETRAD_FAIL(InvalidArgument, "unknown reduce-scatter algorithm '{}' (valid: ring, halving)",
              name);
}

std::string toString(ReduceScatterAlgorithm algorithm) {
  return algorithm == ReduceScatterAlgorithm::kRing ? "ring" : "halving";
}

}  // namespace tetrad
