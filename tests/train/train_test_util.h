// Helpers shared by the training tests (in-process and under mpirun).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tetrad/train/data/dataset.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/transport.h"
#include "train_core_test_util.h"  // makeTempDir, smallSynthetic

namespace tetrad::train::testing {

// A config for the BSP equivalence checks: `model`, per-rank batch
// `batch`, `iterations` steps, momentum and weight decay on, no compression.
TrainConfig equivalenceConfig(const std::string& model, int batch, int64_t iterations,
                              const std::string& algorithm = "ring");

// Resolves `config`, runs the trainer on this rank and returns its final flat
// parameters (empty on a server rank).
std::vector<float> trainRank(const TrainConfig& config, const DataSplits& data,
                             Transport& transport);

// Launches `config` on its cluster with `workers` workers (and the servers its
// arch needs) and returns rank 0's final flat parameters.
std::vector<float> finalParameters(const TrainConfig& config, const DataSplits& data, int workers);

// One run of `config` with a run folder (config.out, or config.resume), as
// `tetrad train` runs it: rank 0's parameters, status and totals, and
// metrics.jsonl without wall times.
struct Outcome {
  std::vector<float> parameters;  // rank 0's
  std::string status;
  std::vector<RankTotals> ranks;  // every rank's totals (servers included)
  int64_t updatesApplied = 0;
  std::map<int64_t, int64_t> stalenessHistogram;
  std::vector<nlohmann::json> metrics;  // metrics.jsonl without wall times
  double finalAccuracy = 0;
  std::string resizes;  // summary's JSON array
  int64_t iterations = 0, samples = 0;
  double epochs = 0;
};
Outcome runInFolder(const TrainConfig& config, const DataSplits& data, int workers);

// max |a - b| / (1 + max |b|); +inf when the sizes differ.
double maxRelativeDifference(const std::vector<float>& a, const std::vector<float>& b);

}  // namespace tetrad::train::testing
