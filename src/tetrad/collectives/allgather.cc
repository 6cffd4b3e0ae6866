// All-gather dispatch, names and argument checks (allgather.h). The
// algorithms live in allgather_ring.cc and allgather_recursive_doubling.cc.
#include "tetrad/collectives/allgather.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <numeric>

#include "tetrad/collectives/analytic_collective.h"
#include "tetrad/collectives/building_blocks.h"
#include "tetrad/collectives/call_check.h"

namespace tetrad {
namespace {

// "all-gather ring of 8 x 4 bytes", or every count when they differ.
std::string allgatherSignature(AllgatherAlgorithm algorithm, std::span<const size_t> counts) {
  const bool equal = std::all_of(counts.begin(), counts.end(),
                                 [&](size_t count) { return count == counts.front(); });
  if (equal) {
    return fmt::format("all-gather {} of {} x {} bytes", toString(algorithm), counts.size(),
                       counts.empty() ? 0 : counts.front());
  }
  return fmt::format("all-gather {} of bytes {}", toString(algorithm), fmt::join(counts, ","));
}

}  // namespace

void allgathervBytes(Transport& transport, ConstBytes mine, MutableBytes out,
                     std::span<const size_t> byteCounts, const AllgatherOptions& options) {
  const int p = transport.size();
  const int rank = transport.rank();
  checkCollectiveTag(transport, options.tag, "all-gather");
  TETRAD_CHECK(byteCounts.size() == static_cast<size_t>(p), InvalidArgument,
               "rank {}: all-gather with {} counts in a world of {} ranks", rank, byteCounts.size(),
               p);
  TETRAD_CHECK(mine.size() == byteCounts[rank], InvalidArgument,
               "rank {}: all-gather contribution of {} bytes, but counts[{}] is {}", rank,
               mine.size(), rank, byteCounts[rank]);
  std::vector<BlockRange> blocks(static_cast<size_t>(p));
  size_t offset = 0;
  for (int r = 0; r < p; ++r) {
    blocks[r] = BlockRange{offset, byteCounts[r]};
    offset += byteCounts[r];
  }
  TETRAD_CHECK(out.size() == offset, InvalidArgument,
               "rank {}: all-gather output of {} bytes, but the counts add up to {}", rank,
               out.size(), offset);
  const CollectiveScope scope(
      transport, {"all-gather", toString(options.algorithm), out.size(), "bytes", 0, options.tag});
  if (!mine.empty() && mine.data() != out.data() + blocks[rank].offset) {
    std::memmove(out.data() + blocks[rank].offset, mine.data(), mine.size());
  }
  const auto run = [&](Transport& t, MutableBytes data) {
    if (options.algorithm == AllgatherAlgorithm::kRing) {
      detail::ringAllgatherv(t, detail::Group::world(t), data, blocks, options.tag);
    } else {
      detail::allgathervRecursiveDoubling(t, data, blocks, options.tag);
    }
  };
  detail::runWithContext(
      [&] {
        if (detail::runAnalytically(transport, allgatherSignature(options.algorithm, byteCounts),
                                    options.tag, out.size(), run)) {
          return;
        }
        run(transport, out);
      },
      [&] {
        return fmt::format(
            "rank {} of {}: {} all-gather of {} bytes from this rank, {} in all "
            "(tag {})",
            rank, p, toString(options.algorithm), mine.size(), out.size(), options.tag);
      });
}

void allgatherv(Transport& transport, std::span<const float> mine, std::span<float> out,
                std::span<const size_t> counts, const AllgatherOptions& options) {
  std::vector<size_t> byteCounts(counts.begin(), counts.end());
  for (size_t& count : byteCounts) count *= sizeof(float);
  allgathervBytes(transport, asBytes(mine), asWritableBytes(out), byteCounts, options);
}

void allgather(Transport& transport, std::span<const float> mine, std::span<float> out,
               const AllgatherOptions& options) {
  TETRAD_CHECK(out.size() == mine.size() * static_cast<size_t>(transport.size()), InvalidArgument,
               "rank {}: all-gather of {} floats per rank needs an output of {} floats, got {}",
               transport.rank(), mine.size(), mine.size() * transport.size(), out.size());
  std::vector<size_t> counts(static_cast<size_t>(transport.size()), mine.size());
  allgatherv(transport, mine, out, counts, options);
}

AllgatherAlgorithm parseAllgatherAlgorithm(std::string_view name) {
  if (name == "ring") return AllgatherAlgorithm::kRing;
  if (name == "rd" || name == "recursive-doubling") return AllgatherAlgorithm::kRecursiveDoubling;
  TETRAD_FAIL(InvalidArgument, "unknown all-gather algorithm '{}' (valid: ring, rd)", name);
}

std::string toString(AllgatherAlgorithm algorithm) {
  return algorithm == AllgatherAlgorithm::kRing ? "ring" : "rd";
}

}  // namespace tetrad
