// Grouping finished runs for reports: per cluster, one row per method, the
// seeds of a (cluster, method) pair averaged, with their sample standard
// deviation (accuracy, time and iterations to target, time per iteration).
//
// Only runs with status "ok" count. Clusters and methods keep the order of
// the sweep file (RunRecord indices), then of their labels. Methods are
// classified by their policies' traits (MethodRole), never their names. The
// baseline of a cluster is its first plain BSP method (synchronous, on an
// all-reduce, uncompressed) whose schedule exchanges after the backward
// pass; its fp16 baseline the method the sweep's baseline16 names (run.json),
// else the first BSP all-reduce method whose only compression is the fp16
// cast and whose schedule overlaps the backward pass (DDP's fp16 hook on its
// buckets: the 16-bit baseline users run), else one exchanging after the
// backward pass. A layer-wise run (config.json's bucket_bytes 0: one bucket,
// so one compressed packet, per tensor) is an ablation and never a baseline.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

// What the baselines need to know of a method, from its policies' traits
// (model/method_traits.h, Scheduler::overlapsBackward()). All false for
// specs the policies do not parse (a run folder from an older tetrad).
struct MethodRole {
  bool plainBsp = false;      // BSP on an all-reduce, uncompressed
  bool fp16Bsp = false;       // BSP on an all-reduce whose compression is the fp16 cast
  bool uncompressed = false;  // the identity compressor
  bool overlapped = false;    // the schedule overlaps the backward pass
};
MethodRole methodRoleOf(const std::string& sync, const std::string& arch,
                        const std::string& compress, const std::string& sched);

struct MethodRow {
  std::string method;
  std::string sync, arch, compress, sched;
  int seeds = 0;                   // ok runs averaged
  double accuracyMean = kMissing;  // final test accuracy
  double accuracyStd = kMissing;   // sample standard deviation (seeds > 1)
  double targetAccuracy = kMissing;
  int reachedTarget = 0;              // seeds that reached it
  double timeToTarget = kMissing;     // mean over the seeds that reached it
  double timeToTargetStd = kMissing;  // sample std over the same seeds
  double itersToTarget = kMissing;    // iterations to target, as timeToTarget
  double itersToTargetStd = kMissing;
  double trainTime = kMissing;
  double timePerIter = kMissing;  // training time / iterations
  double timePerIterStd = kMissing;
  double lr = kMissing;     // the lr of its runs (of its first, should they differ)
  std::string lrTunedFrom;  // the tune_lr grid it was picked from ("": not tuned)
  bool layerWise = false;   // bucket_bytes 0 (an ablation)
  int retimed = 0;          // seeds whose run is a retime (RunRecord::retimedFrom)
  double bytesPerWorkerIter = kMissing;
  double computePerIter = kMissing;  // mean over ranks, seconds per iteration
  double commPerIter = kMissing;
  double codecPerIter = kMissing;         // encode/decode charged (train/loop/codec_charge.h)
  double throughput = kMissing;           // samples per second
  std::vector<std::string> curveFolders;  // every seed's run, lowest seed first
  std::vector<double> seedTimesToTarget;  // per seed, in curveFolders' order; NaN: not reached
  std::vector<ResizeMark> resizes;        // of its first run (elastic resumes)
  MethodRole role;
  bool isBaseline = false;
  bool isFp16Baseline = false;
};

struct ClusterGroup {
  std::string cluster;  // label
  std::string spec;     // cluster spec of its runs
  int workers = 0;
  std::vector<MethodRow> rows;
  int baseline = -1;      // index into rows, or -1
  int fp16Baseline = -1;  // index into rows, or -1
  // The network model(s) its runs recorded (config.json's net_model),
  // distinct, "/"-joined; "" when none did.
  std::string netModel;
};

// True for plain BSP (MethodRole) exchanging after the backward pass.
bool isBaselinePoint(const std::string& sync, const std::string& arch, const std::string& compress,
                     const std::string& sched);

// Sample standard deviation of the values that are not NaN (NaN for fewer
// than two).
double sampleStd(const std::vector<double>& values);

// Groups the ok runs of `records` (see the header comment).
std::vector<ClusterGroup> groupRuns(const std::vector<RunRecord>& records);

}  // namespace tetrad::experiment
