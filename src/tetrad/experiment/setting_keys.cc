#include "tetrad/experiment/setting_keys.h"

#include <fmt/format.h>

#include <cmath>

namespace tetrad::experiment {

const std::vector<SettingKey>& settingKeys() {
  using enum ValueKind;
  static const std::vector<SettingKey> keys = {
      // The taxonomy point.
      {"sync", "--sync", kString},
      {"arch", "--arch", kString},
      {"compress", "--compress", kString},
      {"sched", "--sched", kString},
      // Workload.
      {"model", "--model", kString},
      {"data", "--data", kString},
      {"data_dir", "--data-dir", kString},
      {"train_samples", "--train-samples", kInteger},
      {"test_samples", "--test-samples", kInteger},
      {"partition", "--partition", kString},
      // Cluster ("spec" of a [[cluster]] is the --cluster flag).
      {"cluster", "--cluster", kString},
      {"workers", "--workers", kInteger},
      {"sim_cfg", "--sim-cfg", kStringList},
      {"net_model", "--net-model", kString},      // lv08, cm02, profile:FILE
      {"net_profile", "--net-profile", kString},  // FILE: the same as profile:FILE
      {"timeout", "--timeout", kNumber},
      {"compute", "--compute", kString},
      {"stragglers", "--straggler", kStringList},
      {"compute_noise", "--compute-noise", kNumber},
      {"threads", "--threads", kInteger},
      // Churn (train/membership.h): a scenario of leaves and joins.
      {"membership", "--membership", kString},
      {"churn_restart", "--churn-restart", kNumber},
      {"resize_batch", "--resize-batch", kString},
      {"churn_emergency_checkpoint", "--churn-emergency-checkpoint", kBoolean},
      {"checkpoint_every", "--checkpoint-every", kInteger},
      // Optimisation.
      {"epochs", "--epochs", kInteger},
      {"batch_size", "--batch-size", kInteger},
      {"lr", "--lr", kNumber},
      {"lr_scaling", "--lr-scaling", kString},
      {"warmup", "--warmup", kNumber},
      {"lr_schedule", "--lr-schedule", kString},
      {"momentum", "--momentum", kNumber},
      {"weight_decay", "--weight-decay", kNumber},
      {"bucket_size", "--bucket-size", kStringOrInteger},
      // Evaluation, logging, stopping.
      {"eval_every", "--eval-every", kInteger},
      {"log_every", "--log-every", kInteger},
      {"max_iters", "--max-iters", kInteger},
      {"target_accuracy", "--target-accuracy", kNumber},
      {"timing_only", "--timing-only", kBoolean},
      {"engine", "--engine", kString},  // simgrid, analytic (timing-only)
      // Filled per run from [workload] seeds.
      {"seed", "--seed", kInteger},
      {"args", "", kRawArguments},
  };
  return keys;
}

const SettingKey* findSettingKey(std::string_view key) {
  for (const SettingKey& entry : settingKeys()) {
    if (entry.key == key) return &entry;
  }
  return nullptr;
}

std::string_view describeKind(ValueKind kind) {
  switch (kind) {
    case ValueKind::kString:
      return "a string";
    case ValueKind::kInteger:
      return "an integer";
    case ValueKind::kNumber:
      return "a number";
    case ValueKind::kStringOrInteger:
      return "a string or an integer";
    case ValueKind::kStringList:
    case ValueKind::kRawArguments:
      return "an array of strings";
    case ValueKind::kBoolean:
      return "a boolean";
  }
  return "a value";
}

std::string canonicalNumber(double value) {
  if (std::isfinite(value) && value == std::trunc(value) && std::fabs(value) < 1e15) {
    return fmt::format("{}", static_cast<long long>(value));
  }
  return fmt::format("{}", value);
}

}  // namespace tetrad::experiment
