// CheckpointStore: where the checkpoints of one run folder live, and which
// one a resumed run continues from.
//
//   RUN/checkpoint/iter-000120/rank-00000.ckpt   one file per worker
//                                                (checkpoint_file.h)
// Every worker writes its own file of a checkpoint (no traffic: under MPI
// the run folder must be on a file system every rank sees, as the
// launcher's working directory is). A checkpoint is complete once every
// worker's file has its final name; resume takes the newest complete one.
// Each worker removes its files of checkpoints older than the one before
// the newest, so that the newest complete checkpoint always survives: a
// worker writes checkpoint k+1 only after every worker has passed the
// collectives that follow checkpoint k, that is after writing it (after
// handing it to its writer's thread, when files are written off the loop:
// then three are kept, keepNewest()).
//
// The identity of a run is its configuration (config.json, train_config.h)
// without the keys that do not change what it computes (name, out, timeout,
// timeline, stall warnings, collective checks, checkpoint interval).
// describeMismatch() names every key that differs.
//
// Thread-safety: one store per worker, used by its worker loop.
#pragma once

#include <cstdint>
#include <deque>
#include <string>

#include "tetrad/train/checkpoint/checkpoint_file.h"
#include "tetrad/train/data/batch_plan.h"

namespace tetrad::train {

// A complete checkpoint: its iteration (-1: none) and how many workers wrote it.
struct CheckpointAt {
  int64_t iteration = -1;
  int workers = 0;
};

class CheckpointStore {
 public:
  CheckpointStore(std::string runFolder, int rank, int workers);

  const std::string& runFolder() const { return runFolder_; }
  std::string folder() const;  // RUN/checkpoint
  std::string pathOf(int64_t iteration, int rank) const;
  // Writes this worker's file of the checkpoint after `iteration`
  // iterations, then removes its files older than the checkpoints it keeps.
  void write(int64_t iteration, const CheckpointSections& sections);
  // How many of its newest checkpoints a worker keeps (default 2). Writes
  // off the loop keep 3: a worker may finish checkpoint k+1 while another
  // still writes k, and k-1 must then survive (checkpoint_writer.h).
  void keepNewest(int count) { kept_ = count; }
  // The newest checkpoint every worker's file of which exists; -1 when none.
  int64_t latestComplete() const;
  // The newest checkpoint every file of which exists, whatever the number of
  // workers that wrote it (rank 0's file says how many): what an elastic
  // resize continues from. InvalidArgument when a rank-0 file it reads is
  // damaged.
  CheckpointAt latestCompleteOfAnySize() const;
  // The newest checkpoint any file of which exists; -1 when none.
  int64_t newest() const;
  // This worker's file of checkpoint `iteration` (verified).
  CheckpointSections read(int64_t iteration) const;
  // Worker `rank`'s file of it (verified): a resized run reads the old ranks'.
  CheckpointSections readOf(int64_t iteration, int rank) const;

 private:
  std::string runFolder_;
  int rank_, workers_;
  int kept_ = 2;
  std::deque<int64_t> written_;  // the newest checkpoints this worker wrote
};

// The section "world" of a worker's file: "4 workers, rank 1".
std::string worldText(int workers, int rank);
// The worker count of a "world" text; 0 when it is not one.
int workersOfWorldText(const std::string& text);
// The workers of the run that started `runFolder` (its config.json, kept
// across resumes); 0 when it has none. A resumed run's global batch is
// --batch-size times this count when its checkpoints hold no batch plan.
int workersOfRunFolder(const std::string& runFolder);

// The batch plan (data/batch_plan.h) a run resumed from `runFolder` on
// `workers` workers walks: the newest complete checkpoint's (section
// "batch_plan"; a checkpoint without one walked the uniform grid of the
// folder's first run), unchanged on the same worker count or when
// `resizeBatch` is "global" (the global batch kept), else anchored at that
// checkpoint with `batchSize` x `workers` per iteration ("per-worker"). An
// unresolved plan when the folder holds no complete checkpoint (the ranks
// then refuse the resume). Throws InvalidArgument for a damaged plan.
BatchPlan resumedBatchPlan(const std::string& runFolder, int workers, int batchSize,
                           const std::string& resizeBatch, size_t trainSamples);

// The identity of a run from its config.json text; see the header comment.
std::string runIdentity(const std::string& configJson);
// "" when equal, else "model cnn (checkpoint: mlp), workers 4 (checkpoint: 2)".
std::string describeMismatch(const std::string& checkpointIdentity,
                             const std::string& currentIdentity);

}  // namespace tetrad::train
