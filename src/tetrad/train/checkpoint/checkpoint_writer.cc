#include "tetrad/train/checkpoint/checkpoint_writer.h"

#include <chrono>
#include <cstdio>

namespace tetrad::train {
namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

CheckpointWriter::CheckpointWriter(CheckpointStore& store, bool synchronous)
    : store_(store), synchronous_(synchronous) {
  if (!synchronous) store_.keepNewest(3);
}

CheckpointWriter::~CheckpointWriter() {
  if (!pending_.valid()) return;
  try {
    pending_.get();
  } catch (const std::exception& e) {
    // A destructor must not throw: the loop that owned the writer is
    // already ending (with its own error). Say it.
    std::fprintf(stderr, "tetrad: a checkpoint write failed: %s\n", e.what());
  }
}

double CheckpointWriter::submit(int64_t iteration, CheckpointSections sections) {
  const auto start = std::chrono::steady_clock::now();
  flush();
  if (synchronous_) {
    store_.write(iteration, sections);
  } else {
    // The sections come back to be freed on this thread (flush()): freed
    // on the writer's, their large buffers would leave the allocator's
    // heap, and the next serialisation would fault its pages in again.
    pending_ = std::async(std::launch::async,
                          [this, iteration, owned = std::move(sections)]() mutable {
                            store_.write(iteration, owned);
                            return std::move(owned);
                          });
  }
  return secondsSince(start);
}

void CheckpointWriter::flush() {
  if (pending_.valid()) CheckpointSections written = pending_.get();
}

}  // namespace tetrad::train
