// WorkerCompute: the part of the worker loop (rank_trainer.h) that computes —
// one rank's model, its flat parameter and gradient buffers, its passes and
// optimizer steps and what the compute model charges for them. The loop is
// the same code whatever computes; two kinds plug into it:
//
//   Replica        (replica.h)          LibTorch: real gradients on real data.
//   NominalCompute (nominal_compute.h)  timing-only: the model's tensor shapes,
//                  stages and FLOPs, buffers of the exact size holding seeded
//                  values, passes that compute nothing and are charged by the
//                  compute model (fixed:, flops:, or a measured probe).
//
// Everything else — sync policy, exchange, schedule with its per-stage
// backward replay, checkpoint cut, meter, timeline, summary — is the loop's,
// so a timing-only run sends exactly the messages of a real run.
//
// A ComputeSource makes the WorkerCompute of each worker rank and tells the
// loop what it needs before any worker computes: the training-set size
// (iterations per epoch), the test-set size (evaluation shards) and, on
// ranks that serve and never compute, the model's shape.
//
// This header has no LibTorch include.
//
// Thread-safety: one WorkerCompute per rank, used by that rank's worker (and
// by the rank's pool thread while the worker waits, compute_pool.h). A
// ComputeSource is shared by every rank of a one-process simulation: its
// methods are called by the ranks' workers, one at a time (SimGrid actors)
// or under MPI by the one rank of the process.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/core/bytes.h"
#include "tetrad/sched/bucketing.h"
#include "tetrad/train/record/run_meter.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

struct BatchOutcome {
  double loss = 0;      // mean over the batch
  double correct = 0;   // correct predictions
  double measured = 0;  // seconds of forward + backward on the pass clock
  double charged = 0;   // seconds the compute model charges for them
  // The non-finite guard's scan of the loss and gradients, where the pool
  // thread ran it right after the pass (rank_trainer_loops.cc).
  std::optional<uint32_t> nonFiniteScan;
};

// A forward pass run stage by stage (overlapping schedulers).
struct ForwardOutcome {
  double loss = 0;
  double correct = 0;
  std::vector<double> stageSeconds;  // measured, per stage
};

// Evaluation tags: the buffers' average, then the statistics' sum.
constexpr Tag kEvaluationTagSpan = 2 * kCollectiveTagSpan;

struct EvalResult {
  double loss = 0;  // NaN where nothing was computed (nominal)
  double accuracy = 0;
};

// The model's structure as the loop and the schedulers see it.
struct ModelShape {
  std::vector<ParameterSlot> slots;  // parameter order
  std::vector<int> slotStage;        // forward stage of each slot
  std::vector<double> stageFlops;    // one sample's forward FLOPs per stage
  double forwardFlops = 0;           // one sample's forward FLOPs
};

class WorkerCompute {
 public:
  virtual ~WorkerCompute() = default;

  // False for a nominal replica: passes compute nothing, losses are not
  // losses (reported as null) and the gradients hold no values worth
  // checking or measuring.
  virtual bool computesValues() const = 0;

  // --- Buffers and shape ---
  virtual std::span<float> parameters() = 0;
  virtual std::span<float> gradients() = 0;
  virtual const std::vector<ParameterSlot>& slots() const = 0;
  virtual int stageCount() const = 0;
  virtual int stageOfSlot(size_t slot) const = 0;
  virtual const std::string& stageName(int stage) const = 0;
  virtual double stageFlops(int stage) const = 0;  // one sample's forward
  virtual double forwardFlops() const = 0;         // one sample's forward

  // --- Passes (replica.h documents each) ---
  // forwardBackward() = computeBatch() then chargeBatch(measured); step() =
  // applyStep() then chargeStep(measured). computeBatch() and applyStep()
  // never touch the compute model, so a pool thread may run them.
  virtual BatchOutcome forwardBackward(int64_t step) = 0;
  virtual BatchOutcome computeBatch(int64_t step) = 0;
  virtual double step(double lr) = 0;       // returns the seconds charged
  virtual double applyStep(double lr) = 0;  // returns the measured seconds
  virtual double chargeBatch(double measured) = 0;
  virtual double chargeStep(double measured) = 0;
  // True when charges depend on what a pass measured (else they are known
  // before computing).
  virtual bool chargesMeasured() const = 0;
  enum class PassClock { kWall, kThreadCpu };
  virtual void setPassClock(PassClock clock) = 0;
  // Seconds of one forward + backward, for planning schedules (measured).
  virtual double probeBatchSeconds() = 0;

  // --- Overlapped iterations ---
  virtual void onGradientReady(std::function<void(size_t slot)> ready) = 0;
  virtual ForwardOutcome forward(int64_t step, const std::function<void(int stage)>& before) = 0;
  virtual double backward() = 0;                       // measured seconds
  virtual double stepStage(int stage, double lr) = 0;  // measured seconds
  virtual double chargeStageStep(int stage, double measured) = 0;

  // --- Evaluation (evaluation.h): collective over `group`, which every
  // rank of it calls; `samples`: this rank's test-sample indices; `options`:
  // the all-reduce algorithm and the first of kEvaluationTagSpan tags.
  // `runLocal` runs the forward passes (a job that makes no transport call):
  // inline, or on the simulation's compute pool (compute_pool.h), so that
  // the ranks of a simulation evaluate on every core.
  using LocalRunner = std::function<void(const std::function<void()>& job)>;
  virtual EvalResult evaluate(const std::vector<int64_t>& samples, Transport& group,
                              const AllreduceOptions& options, const LocalRunner& runLocal) = 0;

  // --- Checkpoints ---
  virtual ByteBuffer saveState() = 0;
  virtual void loadState(ConstBytes state, const std::string& origin) = 0;
};

// Run-wide tables of a payload-free simulation (one process whose ranks run
// one at a time): what messages would carry where payload-free ones carry
// nothing. A rank writes before it sends and the others read after they
// received, so the simulation's own order makes every read see the write.
struct PayloadFreeTables {
  std::vector<RankTotals> totals;                 // one slot per rank of the world
  std::map<Tag, std::vector<double>> broadcasts;  // rank 0's set-up values, by tag
};

class ComputeSource {
 public:
  virtual ~ComputeSource() = default;
  // Iterations per epoch with `workers` workers of `batch` samples.
  virtual int64_t stepsPerEpoch(int workers, int batch) const = 0;
  virtual size_t testSamples() const = 0;
  // The compute of worker `rank` of `workers`.
  virtual std::unique_ptr<WorkerCompute> makeWorker(int rank, int workers) = 0;
  // The model's shape, for ranks that only serve.
  virtual ModelShape serverShape() = 0;
  // The tables of a payload-free simulation; null when messages carry
  // payloads.
  virtual PayloadFreeTables* payloadFreeTables() { return nullptr; }
  // Rank `rank` of `worldSize` finished its set-up (its exchange is built);
  // called once per rank from its own thread or actor.
  virtual void rankReady(int /*rank*/, int /*worldSize*/) {}
};

}  // namespace tetrad::train
