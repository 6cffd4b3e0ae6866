// Distributed evaluation on the test set.
//
// Each rank evaluates its share of the test set (rank r: samples r, r+N, ...)
// without gradients, and one all-reduce sums the correct predictions, the
// summed loss and the sample counts: every rank returns the accuracy and mean
// loss of the whole test set. Before that, averageBuffers() makes the replicas
// agree on their floating-point buffers (batch-norm running statistics, which
// each rank updates from its own batches).
//
// The no-grad scope closes before any transport call (see rank_trainer.h).
//
// Thread-safety: called by one rank's worker; every rank must call it.
#pragma once

#include <cstdint>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/train/compute/models.h"
#include "tetrad/train/compute/worker_compute.h"
#include "tetrad/train/data/batch.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

// EvalResult and kEvaluationTagSpan: worker_compute.h.

// Averages `model`'s floating-point buffers across ranks (no-op without any),
// on tags [options.tag, options.tag + kCollectiveTagSpan).
void averageBuffers(Model& model, Transport& transport, const AllreduceOptions& options);

// `shard`: this rank's test-sample indices; `options`: the all-reduce
// algorithm and the first of kEvaluationTagSpan tags (the op is set here);
// `runLocal` runs the forward passes (WorkerCompute::evaluate; default:
// inline).
EvalResult evaluateOnRanks(Model& model, BatchBuilder& builder, const std::vector<int64_t>& shard,
                           Transport& transport, const AllreduceOptions& options,
                           const WorkerCompute::LocalRunner& runLocal = {});

}  // namespace tetrad::train
