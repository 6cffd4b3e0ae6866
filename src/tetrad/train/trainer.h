// runTraining(): one `tetrad train` run from a TrainConfig to a TrainSummary.
//
// It resolves the config (train_config.h), loads the data once per process
// (before any engine starts, so a missing file is one clear error), creates
// the run folder and config.json on the output process, launches one
// RankTrainer per rank on the chosen engine (launch/launcher.h) and
// collects the summary. Under SimGrid all ranks are actors of this process,
// each with its own model replica, optimizer and compressor states; under
// MPI this process is one rank. Only the output process (rank 0) writes
// files and prints.
//
// This header has no LibTorch include (the command-line code includes it).
//
// Thread-safety: call from the main thread, one run at a time.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce_auto.h"
#include "tetrad/train/loop/run_status.h"
#include "tetrad/train/train_config.h"

namespace tetrad {
class Transport;
}  // namespace tetrad

namespace tetrad::train {

struct RankResult;

struct TrainSummary {
  std::string folder;  // the run folder ("" when none was written)
  std::string engine;  // "sim" or "mpi"
  std::string model, data, cluster, sync, arch, compress, pullCompress, sched, gossip;
  int workers = 0;      // W
  int serverRanks = 0;  // dedicated parameter servers (ranks W..)
  int64_t parameters = 0;
  int64_t iterations = 0;
  int64_t updatesApplied = 0;  // push-pull: updates the servers applied
  double epochs = 0;           // epochs completed (fractional when capped)
  int64_t globalBatch = 0;
  double finalAccuracy = 0;       // on the test set (gossip: of the average model)
  double finalOwnAccuracy = -1;   // gossip: rank 0's own model
  double consensusDistance = -1;  // gossip: at the end
  double finalLoss = 0;
  double targetAccuracy = 0;  // 0: none
  double timeToTarget = -1;   // training time when first reached; -1: never
  int64_t iterationsToTarget = -1;
  double trainTime = 0;   // engine clock (simulated or wall), evaluation excluded
  double wallTime = 0;    // wall seconds of the training loop, evaluation excluded
  double throughput = 0;  // samples per second of training time
  RunStatus status = RunStatus::kFinished;
  std::string error;         // why the run did not finish
  int64_t skippedSteps = 0;  // --on-nonfinite skip
  // The compressor measured on rank 0's gradients (gradient_error.h):
  // Σ‖C(g) − g‖² / Σ‖g‖² over that many iterations; -1: not measured.
  double compressionError = -1;
  int64_t compressionErrorSamples = 0;
  // allreduce:auto: the network it predicted on and rank 0's choices.
  std::string allreduceNetwork;
  std::vector<AllreduceSelection> allreduceChoices;
  // Elastic resizes on resume: a JSON array of {iteration, from, to}.
  std::string resizes = "[]";
  // --membership changes (churn_run.cc): a JSON array; "[]" without.
  std::string membership = "[]";
  // Forward/backward passes and optimizer steps run on the compute pool
  // (--sim-threads > 1, compute_pool.h); 0 when every pass ran inline.
  int64_t passesOnPool = 0;
  int64_t passesRaisedToLookahead = 0;  // measured charges raised (compute_pool.h)
  // Per rank of the world (servers included): role, bytes sent and
  // received, compute and communication seconds.
  std::vector<std::string> roles;
  std::vector<uint64_t> bytesSent, bytesReceived;
  std::vector<double> computeTime, commTime;
  std::vector<double> codecTime;  // encode/decode charged (loop/codec_charge.h)
  std::string codecCharge;        // --codec-cost as resolved
  // Push-pull: staleness (clocks) -> number of applied updates.
  std::map<int64_t, int64_t> stalenessHistogram;
  // --timing-only (timing_trainer.h): no model, so accuracies and losses are
  // NaN (null in JSON).
  bool timingOnly = false;
  // --engine analytic: the engine's network as it describes itself
  // (transport/analytic_network.h); empty otherwise.
  std::string analyticEngine;

  std::string toJson() const;
  // A short human-readable block for the terminal.
  std::string toText() const;
};

// Runs the whole training; see the header comment. Throws the typed errors of
// core/error.h (InvalidArgument for bad flags or data, Unsupported for
// combinations not implemented yet).
TrainSummary runTraining(const TrainConfig& config);

// A simulated run with --membership, in segments (churn_run.cc): leaves and
// joins of workers, each an elastic resize from a checkpoint.
TrainSummary runWithMembership(const ResolvedConfig& config);

// The fields every run's summary has, from rank 0's result of the worker
// loop on `world` (`folder`: the run folder, "" when none was written).
// runTraining() and the timing-only run (timing/timing_trainer.h) add their
// own.
TrainSummary summaryOf(const ResolvedConfig& config, const RankResult& result, Transport& world,
                       int64_t parameters, const std::string& folder);

// The parameter count of `model` for `data`'s input shape, without training
// (used by --help style listings and tests).
int64_t countParameters(const std::string& model, int channels, int height, int width,
                        int numClasses);

}  // namespace tetrad::train
