// RankTrainer on LibTorch replicas (rank_trainer.h's first constructor): the
// one piece of the worker loop that needs LibTorch, kept apart so that the
// loop itself links without it (libtorch_parts.h).
#include <memory>

#include "tetrad/train/compute/replica.h"
#include "tetrad/train/loop/rank_trainer.h"

namespace tetrad::train {

RankTrainer::RankTrainer(const ResolvedConfig& config, const DataSplits& data, Transport& world,
                         RunRecorder* recorder, ComputePool* pool)
    : config_(config),
      ownSource_(std::make_unique<ReplicaSource>(config, data)),
      source_(*ownSource_),
      world_(world),
      recorder_(recorder),
      pool_(pool) {}

}  // namespace tetrad::train
