// Grouping finished runs for reports: per cluster, one row per method, the
// seeds of a (cluster, method) pair averaged, with their sample standard
// deviation (accuracy, time and iterations to target, time per iteration).
//
// Only runs with status "ok" count. Clusters and methods keep the order of
// the sweep file (RunRecord indices), then of their labels. The baseline of
// a cluster is its first method whose sync is bsp, arch allreduce:*,
// compress none and sched none (BSP without compression); its fp16 baseline
// the method the sweep's baseline16 names (run.json), else the first such
// method with compress fp16 and sched ddp (DDP's fp16 hook
// on DDP's buckets, overlapped with the backward pass: the 16-bit baseline
// users run), else with sched none. A layer-wise run (config.json's
// bucket_bytes 0: one bucket, so one compressed packet, per tensor) is an
// ablation and never a baseline.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/experiment/run_record.h"

namespace tetrad::experiment {

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
  std::vector<ResizeMark> resizes;        // of its first run (elastic resumes)
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

// True for BSP with all-reduce, no compression and no scheduling.
bool isBaselinePoint(const std::string& sync, const std::string& arch, const std::string& compress,
                     const std::string& sched);

// Sample standard deviation of the values that are not NaN (NaN for fewer
// than two).
double sampleStd(const std::vector<double>& values);

// Groups the ok runs of `records` (see the header comment).
std::vector<ClusterGroup> groupRuns(const std::vector<RunRecord>& records);

}  // namespace tetrad::experiment
