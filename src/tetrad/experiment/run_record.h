// RunRecord: what one run folder says about its run, read back from its files
// alone — run.json (written by `tetrad run`: labels, seed, hash), config.json
// and summary.json (written by `tetrad train`), metrics.jsonl (the curves).
//
// Every summary field is optional: a missing or null number reads as NaN
// (printed "-" or left empty), so folders from older or newer trainers, and
// runs that failed, still read. Folders without run.json (a plain `tetrad
// train` run) get labels derived from their configuration.
//
// Pure functions over files; thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace tetrad::experiment {

inline constexpr double kMissing = std::numeric_limits<double>::quiet_NaN();

// An elastic resize of a run (summary.json's "resizes", written when a run
// resumed on another worker count; train/loop/rank_trainer_resize.cc).
struct ResizeMark {
  int64_t iteration = 0;
  int from = 0, to = 0;
  double trainTime = kMissing;  // training time at the resize
};

struct RunRecord {
  std::string folder;   // path of the run folder
  std::string name;     // its last component
  std::string method;   // method label
  std::string cluster;  // cluster label
  int methodIndex = -1;
  int clusterIndex = -1;
  uint64_t seed = 0;
  std::string hash;
  // "ok" (summary.json of a finished run), "diverged" (the non-finite guard
  // stopped it: a result), "interrupted" (a signal stopped it after a
  // checkpoint: to be resumed), "failed" (train.log only), "not run".
  std::string status;
  // From config.json / summary.json.
  std::string sync, arch, compress, sched, model, data, clusterSpec, engine;
  std::string netModel;  // config.json's net_model ("" when not recorded)
  int workers = 0;
  int64_t iterations = 0;
  int64_t globalBatch = 0;
  double finalAccuracy = kMissing;
  double targetAccuracy = kMissing;
  double timeToTarget = kMissing;  // NaN: no target, or not reached (see targetAccuracy)
  double iterationsToTarget = kMissing;
  double trainTime = kMissing;  // engine clock: simulated under SimGrid
  double wallTime = kMissing;
  double throughput = kMissing;          // samples per second of training time
  double bytesPerWorkerIter = kMissing;  // mean over ranks of bytes sent, per iteration
  double computeTime = kMissing;         // mean over ranks, seconds
  double commTime = kMissing;            // mean over ranks, seconds
  double codecTime = kMissing;           // mean over ranks, seconds (encode/decode)
  double lr = kMissing;                  // config.json: the --lr the run trained with
  double momentum = kMissing;            // config.json: its --momentum
  // summary.json's compression_error.ratio: the run's compressor measured on
  // its rank 0's gradients (train/loop/gradient_error.h); NaN when not measured.
  double compressionError = kMissing;
  // config.json: bytes per gradient bucket; 0 is one bucket per tensor
  // (layer-wise compression: an ablation, labelled so in reports).
  double bucketBytes = kMissing;
  // run.json: the tune_lr grid this lr was picked from, ';'-separated ("":
  // not tuned), and "tuning" for a tuning run (lr_tuning.h).
  std::string lrTunedFrom;
  std::string phase;
  // run.json / summary.json: the run folder this run is a retime of (its
  // times are a timing-only replay of that run on this run's network,
  // retime_plan.h); "" for a trained run.
  std::string retimedFrom;
  std::string baseline16;  // run.json: the sweep's 16-bit baseline label
  // Optional summary fields kept verbatim (JSON text, "" when absent):
  // staleness_histogram, bytes_sent_by_role, resizes, elastic.
  std::string extraJson;
  std::vector<ResizeMark> resizes;  // summary.json's "resizes", parsed
};

// One evaluation of the test set (metrics.jsonl, "kind": "eval").
struct EvalPoint {
  int64_t iteration = 0;
  double time = 0;  // sim_time: training time on the engine clock
  double accuracy = 0;
  double bytesSent = 0;  // rank 0's bytes sent so far
};

// A run folder's status (see RunRecord::status) from its files alone.
std::string runStatus(const std::string& folder);

// True when a sweep has nothing left to do for the run in `folder`: it
// finished or diverged. Interrupted, failed and missing runs are run again
// (interrupted ones resume from their checkpoint).
bool runDone(const std::string& folder);

// Reads the run folder `folder` (never throws for missing or malformed files;
// they read as missing values).
RunRecord readRunFolder(const std::string& folder);

// Every sub-folder of `dir` holding run.json, config.json or summary.json,
// ordered by cluster, method (their order in the sweep file) and seed.
std::vector<RunRecord> readRunFolders(const std::string& dir);

// The evaluations recorded in `folder`/metrics.jsonl, in file order.
std::vector<EvalPoint> readEvalCurve(const std::string& folder);

// The loss of the last training record ("kind": "train": the mean over its
// log window) in `folder`/metrics.jsonl; NaN when there is none.
double readLastTrainLoss(const std::string& folder);

}  // namespace tetrad::experiment
