// `tetrad bench checkpoint`: the cost of writing one worker's checkpoint,
// against a plain write of the same number of bytes in the same run.
//
// For each model, one replica (replica.h) takes a training step (so the
// optimizer holds its momentum), then, `repeats` times alternately:
//   checkpoint  Replica::saveState() into a CheckpointSections and
//               writeCheckpointFile() (serialise, CRC-32, PATH.tmp, fsync,
//               rename) — what a worker does at a checkpoint;
//   plain       open, write the same number of bytes from memory, fsync,
//               close — the floor set by the disk;
//   read        readCheckpointFile() (read and verify the checksum) and
//               Replica::loadState() — what a resumed worker does;
//   async       serialise and CheckpointWriter::submit() (checkpoint_writer.h):
//               what the loop waits for when the file is written by the
//               writer's thread (the write itself is then flushed, untimed;
//               what that thread takes from the training's cores is not
//               measured here).
// Medians of the repeats are reported; the machine is shared and noisy, so
// the ratio checkpoint / plain is the result.
//
// This header has no LibTorch include. Thread-safety: call from the main
// thread.
#pragma once

#include <string>
#include <vector>

#include "tetrad/train/train_config.h"

namespace tetrad::train {

struct CheckpointBenchOptions {
  std::vector<std::string> models = {"cnn", "resnet20"};
  std::string folder;  // where the files go ("": a fresh folder under the temp dir)
  int repeats = 5;
  TrainConfig config;  // data, batch, optimizer settings, seed
};

struct CheckpointBenchRow {
  std::string model;
  int64_t parameters = 0;
  uint64_t fileBytes = 0;        // the checkpoint file, header included
  double serialiseSeconds = 0;   // median: Replica::saveState() alone
  double checkpointSeconds = 0;  // median: serialise + write + fsync + rename
  double plainSeconds = 0;       // median: write + fsync of fileBytes
  double readSeconds = 0;        // median: read + verify + load
  double asyncSeconds = 0;       // median: serialise + submit to the writer thread
};

std::vector<CheckpointBenchRow> benchCheckpoints(const CheckpointBenchOptions& options);

}  // namespace tetrad::train
