// CheckpointWriter: a worker's checkpoint files written off the training
// loop (`tetrad elastic` checkpoints often: a synchronous write and fsync
// of a large model stalls every iteration that takes one).
//
// submit() takes the sections the loop serialised and returns at once; a
// thread of the writer's own writes them through the store (PATH.tmp,
// fsync, rename, older files removed: checkpoint_store.h), so a checkpoint
// is complete, as before, once every worker's file has its final name. At
// most one write is in flight: submit() first waits for the previous one,
// and flush() waits for the last (a stopped run flushes before it reports
// its checkpoint; the writer's destructor flushes too). A failed write is
// thrown by the next submit() or flush(), naming the file.
//
// `synchronous` writes inside submit() instead: simulated runs do, as their
// writes cost no simulated time and a resumed simulation must find every
// file the moment the run stopped.
//
// Thread-safety: one worker loop calls submit() and flush(); the store is
// used by the writer's thread while a write is in flight and by nobody else.
#pragma once

#include <cstdint>
#include <future>

#include "tetrad/train/checkpoint/checkpoint_store.h"

namespace tetrad::train {

class CheckpointWriter {
 public:
  CheckpointWriter(CheckpointStore& store, bool synchronous);
  ~CheckpointWriter();
  CheckpointWriter(const CheckpointWriter&) = delete;
  CheckpointWriter& operator=(const CheckpointWriter&) = delete;

  // Starts writing checkpoint `iteration`; returns the seconds the caller
  // waited (for the previous write, or for this one when synchronous).
  double submit(int64_t iteration, CheckpointSections sections);
  // Waits for the write in flight; rethrows its error.
  void flush();

 private:
  CheckpointStore& store_;
  bool synchronous_;
  std::future<CheckpointSections> pending_;  // handed back when written
};

}  // namespace tetrad::train
