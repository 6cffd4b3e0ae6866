#include "tetrad/train/data/batch_plan.h"

#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"

namespace tetrad::train {

EpochPlace BatchPlan::at(int64_t iteration) const {
  TETRAD_CHECK(resolved() && iteration >= firstIteration, InvalidArgument,
               "batch plan: iteration {} lies before the plan's first iteration {} (global batch "
               "{})",
               iteration, firstIteration, globalBatch);
  const int64_t d = iteration - firstIteration;
  if (d < stepsInFirstEpoch) return {epoch, position + d * globalBatch};
  const int64_t m = d - stepsInFirstEpoch;
  return {epoch + 1 + m / stepsPerEpoch, (m % stepsPerEpoch) * globalBatch};
}

int64_t BatchPlan::gridStep(int64_t iteration) const {
  const EpochPlace place = at(iteration);
  return place.epoch * stepsPerEpoch + place.position / globalBatch;
}

double BatchPlan::epochsAt(int64_t iteration) const {
  // On a run's own grid exactly iteration / S, as the loop always wrote.
  return double(gridStep(iteration)) / double(stepsPerEpoch);
}

int64_t BatchPlan::samplesAt(int64_t iteration) const {
  TETRAD_CHECK(iteration >= firstIteration, InvalidArgument,
               "batch plan: iteration {} lies before the plan's first iteration {}", iteration,
               firstIteration);
  return samplesBefore + (iteration - firstIteration) * globalBatch;
}

int64_t BatchPlan::iterationsFor(int64_t epochs) const {
  if (epochs <= epoch) return firstIteration;
  return firstIteration + stepsInFirstEpoch + (epochs - epoch - 1) * stepsPerEpoch;
}

std::string BatchPlan::toJson() const {
  nlohmann::ordered_json j;
  j["first_iteration"] = firstIteration;
  j["epoch"] = epoch;
  j["position"] = position;
  j["samples_before"] = samplesBefore;
  j["global_batch"] = globalBatch;
  j["steps_per_epoch"] = stepsPerEpoch;
  j["steps_in_first_epoch"] = stepsInFirstEpoch;
  return j.dump();
}

BatchPlan batchPlanFromJson(const std::string& text, const std::string& origin) {
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  TETRAD_CHECK(j.is_object(), InvalidArgument, "{}: its batch plan is not a JSON object", origin);
  auto field = [&](const char* key, int64_t least) {
    TETRAD_CHECK(j.contains(key) && j[key].is_number_integer() && j[key].get<int64_t>() >= least,
                 InvalidArgument, "{}: its batch plan's {} is missing or below {}", origin, key,
                 least);
    return j[key].get<int64_t>();
  };
  BatchPlan plan;
  plan.firstIteration = field("first_iteration", 0);
  plan.epoch = field("epoch", 0);
  plan.position = field("position", 0);
  plan.samplesBefore = field("samples_before", 0);
  plan.globalBatch = field("global_batch", 1);
  plan.stepsPerEpoch = field("steps_per_epoch", 1);
  plan.stepsInFirstEpoch = field("steps_in_first_epoch", 0);
  return plan;
}

BatchPlan uniformBatchPlan(int64_t globalBatch, int64_t steps) {
  TETRAD_CHECK(globalBatch >= 1 && steps >= 1, InvalidArgument,
               "batch plan: a global batch of {} in {} steps per epoch", globalBatch, steps);
  BatchPlan plan;
  plan.globalBatch = globalBatch;
  plan.stepsPerEpoch = steps;
  plan.stepsInFirstEpoch = steps;
  return plan;
}

BatchPlan resizedBatchPlan(const BatchPlan& old, int64_t iteration, int64_t globalBatch,
                           size_t samples) {
  TETRAD_CHECK(globalBatch >= 1 && size_t(globalBatch) <= samples, InvalidArgument,
               "a global batch of {} samples does not fit in the {} training samples; lower "
               "--batch-size or use more samples",
               globalBatch, samples);
  const EpochPlace place = old.at(iteration);
  BatchPlan plan;
  plan.firstIteration = iteration;
  plan.epoch = place.epoch;
  plan.position = place.position;
  plan.samplesBefore = old.samplesAt(iteration);
  plan.globalBatch = globalBatch;
  plan.stepsPerEpoch = int64_t(samples) / globalBatch;
  plan.stepsInFirstEpoch = (int64_t(samples) - place.position) / globalBatch;
  return plan;
}

}  // namespace tetrad::train
