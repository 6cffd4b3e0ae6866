// Cost per iteration (one channel, α–β): unit j starts at max(ready_j,
// end_{j−1}) and lasts its exchange's cost (ring all-reduce of n_j floats on
// p workers: 2(p−1)α + 2(p−1)/p·4n_j·β); the worker waits for the last unit
// (or, with priority, for each stage's units before that stage's forward).
#include "tetrad/train/loop/gradient_pipeline.h"

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr int64_t kStop = -1;    // ready queue: end the task
constexpr int64_t kFailed = -2;  // done queue: the task failed

}  // namespace

GradientPipeline::GradientPipeline(Transport& world, Exchange& exchange, std::span<float> gradients,
                                   std::vector<BucketRange> units,
                                   std::span<const ParameterSlot> slots,
                                   std::span<const int> slotStage)
    : world_(world), exchange_(exchange), gradients_(gradients), units_(std::move(units)) {
  TETRAD_CHECK(slots.size() == slotStage.size() && !units_.empty(), InvalidArgument,
               "gradient pipeline: {} parameters, {} stages, {} units", slots.size(),
               slotStage.size(), units_.size());
  unitsOfSlot_.resize(slots.size());
  slotsPerUnit_.assign(units_.size(), 0);
  int stages = 0;
  for (int stage : slotStage) stages = std::max(stages, stage + 1);
  unitsOfStage_.resize(size_t(stages));
  size_t offset = 0;
  for (size_t p = 0; p < slots.size(); ++p) {
    const size_t end = offset + slots[p].count;
    for (size_t u = 0; u < units_.size(); ++u) {
      const size_t low = units_[u].offset, high = low + units_[u].count;
      if (low < end && offset < high) {
        unitsOfSlot_[p].push_back(u);
        ++slotsPerUnit_[u];
        auto& ofStage = unitsOfStage_[size_t(slotStage[p])];
        if (std::find(ofStage.begin(), ofStage.end(), u) == ofStage.end()) ofStage.push_back(u);
      }
    }
    offset = end;
  }
  for (size_t u = 0; u < units_.size(); ++u) {
    TETRAD_CHECK(slotsPerUnit_[u] > 0 && units_[u].offset + units_[u].count <= gradients_.size(),
                 InvalidArgument, "gradient pipeline: unit {} ({}) lies outside the parameters", u,
                 units_[u].names);
  }
  unitDone_.assign(units_.size(), 0);
  ready_ = world_.makeQueue("ready gradients");
  done_ = world_.makeQueue("exchanged gradients");
  task_ = world_.spawn("comm", [this] { runTask(); });
}

GradientPipeline::~GradientPipeline() {
  try {
    stop();
  } catch (...) {
    // The worker is already unwinding or has seen the error.
  }
}

void GradientPipeline::runTask() {
  std::vector<char> ready(units_.size(), 0);
  size_t next = 0;
  int64_t iteration = 0;
  try {
    while (true) {
      while (!ready[next]) {
        const int64_t value = ready_->pop();
        if (value == kStop) return;
        ready[size_t(value)] = 1;
      }
      if (next == 0) iteration = iteration_;
      const double start = world_.now();
      exchange_.average(ExchangeStream::kGradients, next,
                        gradients_.subspan(units_[next].offset, units_[next].count));
      const double end = world_.now();
      busySeconds_ += end - start;
      timings_.push_back({next, iteration, start, end});
      ready[next] = 0;
      done_->push(int64_t(next));
      next = (next + 1) % units_.size();
    }
  } catch (...) {
    done_->push(kFailed);
    throw;  // the Task keeps it for join()
  }
}

void GradientPipeline::beginIteration(int64_t iteration) {
  TETRAD_CHECK(!pending(), Error,
               "gradient pipeline: iteration {} begins before iteration {} was exchanged",
               iteration, iteration_);
  iteration_ = iteration;
  waitingSlots_ = slotsPerUnit_;
  std::fill(unitDone_.begin(), unitDone_.end(), 0);
  doneCount_ = 0;
  begun_ = true;
}

void GradientPipeline::slotReady(size_t slot) {
  for (size_t u : unitsOfSlot_.at(slot)) {
    if (--waitingSlots_[u] == 0) ready_->push(int64_t(u));
  }
}

void GradientPipeline::markDone(int64_t unit) {
  if (unit == kFailed) {
    stop();  // rethrows the task's error
    TETRAD_FAIL(Error, "rank {}: the communication task failed", world_.rank());
  }
  unitDone_[size_t(unit)] = 1;
  ++doneCount_;
}

void GradientPipeline::waitAll() {
  while (pending()) markDone(done_->pop());
  begun_ = false;
}

void GradientPipeline::waitStage(int stage) {
  if (!begun_) return;
  for (size_t u : unitsOfStage_.at(size_t(stage))) {
    while (!unitDone_[u]) markDone(done_->pop());
  }
  if (doneCount_ == units_.size()) begun_ = false;
}

std::vector<UnitTiming> GradientPipeline::takeTimings() {
  std::vector<UnitTiming> out;
  out.swap(timings_);
  return out;
}

void GradientPipeline::stop() {
  if (stopped_) return;
  stopped_ = true;
  ready_->push(kStop);
  task_->join();
}

}  // namespace tetrad::train
