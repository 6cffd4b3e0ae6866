// RankTrainer: the worker loop of one rank (BSP data-parallel SGD).
//
// Per iteration: gather this rank's batch (partition.h), forward and
// backward into the flat gradient buffer (flat_gradients.h), charge the
// compute time (compute_model.h; Transport::compute is a no-op under MPI),
// aggregate every bucket with aggregate() (compress/aggregate.h: the
// configured compressor and all-reduce algorithm, one CompressorState per
// bucket kept across steps, average over ranks; without compression the
// bucket is all-reduced in place, the same exchange without aggregate()'s
// encode/decode copies), then an SGD step with
// momentum, weight decay and the scheduled learning rate (lr_schedule.h).
// Evaluation runs on each rank's strided share of the test set, summed by
// an all-reduce; its time and traffic are excluded from the training numbers.
// Batch-norm buffers are averaged across ranks before each evaluation.
//
// Never holds a LibTorch thread-local guard (NoGradGuard) across a transport
// call: under SimGrid every rank is an actor of one thread, and a guard left
// set while another actor runs would leak into that actor.
//
// Thread-safety: one RankTrainer per rank, used by that rank's worker only.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/train/dataset.h"
#include "tetrad/train/models.h"
#include "tetrad/train/run_recorder.h"
#include "tetrad/train/train_config.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

struct RankResult {
  int64_t iterations = 0;
  double epochs = 0;
  double finalAccuracy = 0;
  double finalLoss = 0;
  double timeToTarget = -1;
  int64_t iterationsToTarget = -1;
  double trainTime = 0;
  double wallTime = 0;
  int64_t samples = 0;  // training samples processed by all ranks
  // Per rank (gathered at the end): traffic and time.
  std::vector<uint64_t> bytesSent, bytesReceived;
  std::vector<double> computeTime, commTime;
  std::vector<float> parameters;  // final flat parameters (when requested)
};

class RankTrainer {
 public:
  // `config` must be resolved; `recorder` is null except on the output rank.
  RankTrainer(const TrainConfig& config, const DataSplits& data, Transport& transport,
              RunRecorder* recorder);
  ~RankTrainer();

  // Trains to the end; with `keepParameters`, RankResult::parameters holds
  // the final parameters.
  RankResult run(bool keepParameters = false);

  Model& model() { return *model_; }

 private:
  const TrainConfig& config_;
  const DataSplits& data_;
  Transport& transport_;
  RunRecorder* recorder_;
  ModelPtr model_;
};

}  // namespace tetrad::train
