// Helpers of the arch tests: an ExchangeContext over a world, and the
// deterministic per-rank values they average.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "tetrad/arch/registry.h"
#include "tetrad/sync/registry.h"
#include "tetrad/transport/prefix_transport.h"

namespace tetrad::testing {

// Everything one rank needs to build an Exchange (owns the views and tags).
struct ExchangeSetup {
  std::unique_ptr<PrefixTransport> view;
  TagSpace tags;
  SyncPolicyPtr sync;
  ExchangeContext context;

  ExchangeSetup(Transport& world, int workers, const std::string& sync,
                const std::vector<size_t>& bucketSizes, const std::string& compress = "none",
                uint64_t partitionBytes = 4ull << 20, Tag firstTag = 1000)
      : tags(firstTag) {
    if (workers < world.size() && world.rank() < workers) {
      view = std::make_unique<PrefixTransport>(world, workers);
    }
    this->sync = makeSyncPolicy(sync);
    context.world = &world;
    context.workers = view ? view.get() : &world;
    context.workerCount = workers;
    context.tags = &tags;
    context.compress = compress;
    context.sync = this->sync.get();
    context.partitionBytes = partitionBytes;
    size_t offset = 0;
    // One tensor per bucket.
    for (size_t count : bucketSizes) {
      context.slots.push_back({"t" + std::to_string(context.slots.size()), count, {}});
      context.buckets.push_back({offset, count, {}, "b"});
      offset += count;
    }
  }
};

// Value i of rank r: distinct, exactly representable sums.
inline float valueOf(int rank, size_t i) {
  return float((rank + 1) * 1000 + int(i % 997));
}

}  // namespace tetrad::testing
