// RunRecorder: the run folder of one `tetrad train` run, written by the
// output process only (rank 0; under SimGrid the one process).
//
//   config.json     the resolved configuration (train_config.h)
//   metrics.jsonl   one JSON object per line, per logged iteration ("kind":
//                   "train": rank 0's mean loss and accuracy on its training
//                   batches since the previous line) and per evaluation
//                   ("kind": "eval": loss and accuracy on the whole test set);
//                   fields: kind, iteration, epoch, sim_time, wall_time, loss,
//                   accuracy, lr, bytes_sent, bytes_received, compute_time,
//                   comm_time (rank 0's totals so far; see docs/training.md)
//   summary.json    the final summary (trainer.h)
//
// It also prints the throttled progress line on stderr.
//
// Thread-safety: used by one rank's worker only.
#pragma once

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>

namespace tetrad::train {

struct MetricsRecord {
  std::string kind;  // "train" or "eval"
  int64_t iteration = 0;
  double epoch = 0;
  double simTime = 0;   // engine clock (simulated under SimGrid, wall under MPI), training only
  double wallTime = 0;  // wall seconds since the start, training only
  double loss = 0;
  double accuracy = 0;
  double lr = 0;
  uint64_t bytesSent = 0;
  uint64_t bytesReceived = 0;
  double computeTime = 0;
  double commTime = 0;
  double codecTime = 0;
  // Push-pull (ssp/asp), train lines: staleness of this rank's updates
  // since the previous line (mean and max); absent when < 0.
  double meanStaleness = -1;
  int64_t maxStaleness = -1;
  // Gossip: train lines, (1/n) Σ‖x_i − x̄‖²; eval lines, the accuracy of
  // rank 0's own model (`accuracy` is the average model's). Absent when < 0.
  double consensusDistance = -1;
  double ownAccuracy = -1;
  // --on-nonfinite skip, train lines: steps skipped so far; absent when < 0.
  int64_t skippedSteps = -1;
};

class RunRecorder {
 public:
  // Creates `folder` (and parents); throws InvalidArgument when it cannot.
  // `progress`: print progress lines on stderr.
  // `resume`: the folder holds a run being resumed; metrics.jsonl is kept
  // (resumeMetricsAt() cuts it back to the checkpoint).
  RunRecorder(std::string folder, bool progress, bool resume = false);
  ~RunRecorder();

  const std::string& folder() const { return folder_; }
  void writeConfig(const std::string& json);
  void writeSummary(const std::string& json);
  void record(const MetricsRecord& record);
  // A line of `kind` at `iteration` and training time `simTime`, with the
  // fields of the JSON object `fields` (a --membership change).
  void recordNote(const std::string& kind, int64_t iteration, double simTime,
                  const std::string& fields);
  // Bytes of metrics.jsonl written so far (a checkpoint keeps it).
  uint64_t metricsBytes();
  // Cuts metrics.jsonl back to `bytes` (the lines written after the
  // checkpoint go) and appends from there; InvalidArgument when the file is
  // shorter.
  void resumeMetricsAt(uint64_t bytes);
  // Prints `line` on stderr unless one was printed less than a second ago
  // (10 s when stderr is not a terminal); `force` prints anyway.
  void progress(const std::string& line, bool force);
  // Ends the progress line.
  void endProgress();

 private:
  void writeFile(const std::string& name, const std::string& text);
  std::string folder_;
  bool progress_;
  bool progressOpen_ = false;
  std::ofstream metrics_;
  std::chrono::steady_clock::time_point lastProgress_{};
};

}  // namespace tetrad::train
