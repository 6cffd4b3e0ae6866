// All-reduce dispatch, names and argument checks (allreduce.h). The
// algorithms live in allreduce_*.cc, each with its α–β cost.
#include "tetrad/collectives/allreduce.h"

#include <fmt/format.h>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

struct AlgorithmName {
  AllreduceAlgorithm algorithm;
  const char* name;
};
constexpr AlgorithmName kNames[] = {
    {AllreduceAlgorithm::kRing, "ring"},
    {AllreduceAlgorithm::kRecursiveDoubling, "rd"},
    {AllreduceAlgorithm::kRabenseifner, "rabenseifner"},
    {AllreduceAlgorithm::kTree, "tree"},
    {AllreduceAlgorithm::kHierarchical, "hierarchical"},
    {AllreduceAlgorithm::kNative, "native"},
    {AllreduceAlgorithm::kAuto, "auto"},
};

}  // namespace

void allreduce(Transport& transport, std::span<float> data, const AllreduceOptions& options) {
  if (options.algorithm == AllreduceAlgorithm::kAuto) {
    TETRAD_CHECK(options.selector != nullptr, InvalidArgument,
                 "rank {}: allreduce:auto of {} floats without a selector (the run's network "
                 "was not given to the exchange)",
                 transport.rank(), data.size());
    AllreduceOptions chosen = options;
    chosen.algorithm = options.selector->record(data.size(), options.wire);
    allreduce(transport, data, chosen);
    return;
  }
  checkCollectiveTag(transport, options.tag, "all-reduce");
  const WirePrecision wire = options.wire;
  const Tag tag = options.tag;
  const ReduceOp op = options.op;
  const CollectiveScope scope(transport, {"all-reduce", toString(options.algorithm), data.size(),
                                          toString(wire), op == ReduceOp::kSum ? 0 : 1, tag});
  // The algorithm on `t` (this rank's transport, or the analytic engine's
  // recording one).
  const auto run = [&](Transport& t, std::span<float> values) {
    switch (options.algorithm) {
      case AllreduceAlgorithm::kRing:
        return detail::allreduceRing(t, values, op, wire, tag);
      case AllreduceAlgorithm::kRecursiveDoubling:
        return detail::allreduceRecursiveDoubling(t, values, op, wire, tag);
      case AllreduceAlgorithm::kRabenseifner:
        return detail::allreduceRabenseifner(t, values, op, wire, tag);
      case AllreduceAlgorithm::kTree:
        return detail::allreduceTree(t, values, op, wire, tag);
      case AllreduceAlgorithm::kHierarchical:
        return detail::allreduceHierarchical(t, values, op, wire, tag);
      case AllreduceAlgorithm::kAuto:
        break;  // resolved above
      case AllreduceAlgorithm::kNative:
        TETRAD_CHECK(wire == WirePrecision::kFloat32, Unsupported,
                     "the native all-reduce sends float32 only; a {} wire needs one of "
                     "ring, rd, rabenseifner, tree, hierarchical",
                     toString(wire));
        return t.nativeAllreduce(values, op);
    }
    TETRAD_FAIL(InvalidArgument, "unknown all-reduce algorithm {}",
                static_cast<int>(options.algorithm));
  };
  detail::runWithContext(
      [&] {
        const std::string signature =
            fmt::format("all-reduce {} of {} floats, {} wire, {}", toString(options.algorithm),
                        data.size(), toString(wire), op == ReduceOp::kSum ? "sum" : "average");
        if (detail::runAnalytically(
                transport, signature, tag, data.size_bytes(),
                [&](Transport& t, MutableBytes scratch) {
                  run(t, {reinterpret_cast<float*>(scratch.data()), data.size()});
                })) {
          return;
        }
        run(transport, data);
      },
      [&] {
        const std::string wireNote =
            wire == WirePrecision::kFloat32 ? "" : fmt::format(", {} wire", toString(wire));
        return fmt::format("rank {} of {}: {} all-reduce of {} floats{} (tag {})", transport.rank(),
                           transport.size(), toString(options.algorithm), data.size(), wireNote,
                           tag);
      });
}

AllreduceAlgorithm parseAllreduceAlgorithm(std::string_view name) {
  if (name == "recursive-doubling") return AllreduceAlgorithm::kRecursiveDoubling;
  if (name == "hd" || name == "halving-doubling") return AllreduceAlgorithm::kRabenseifner;
  if (name == "binomial") return AllreduceAlgorithm::kTree;
  for (const AlgorithmName& entry : kNames) {
    if (name == entry.name) return entry.algorithm;
  }
  TETRAD_FAIL(InvalidArgument,
              "unknown all-reduce algorithm '{}' (valid: auto, ring, rd, rabenseifner, tree, "
              "hierarchical, native)",
              name);
}

std::string toString(AllreduceAlgorithm algorithm) {
  for (const AlgorithmName& entry : kNames) {
    if (entry.algorithm == algorithm) return entry.name;
  }
  return fmt::format("allreduce-algorithm-{}", static_cast<int>(algorithm));
}

std::vector<AllreduceAlgorithm> allAllreduceAlgorithms() {
  std::vector<AllreduceAlgorithm> all;
  for (const AlgorithmName& entry : kNames) {
    if (entry.algorithm != AllreduceAlgorithm::kAuto) all.push_back(entry.algorithm);
  }
  return all;
}

}  // namespace tetrad
