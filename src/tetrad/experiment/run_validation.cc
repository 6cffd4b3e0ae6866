#include "tetrad/experiment/run_validation.h"

#include <optional>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {

// The validator's message for `args`, or nothing when they are valid.
std::optional<std::string> problemWith(const std::vector<std::string>& args,
                                       const TrainArgsValidator& validate) {
  try {
    validate(args);
  } catch (const Error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

// The argument whose removal makes `run` valid, if exactly one does.
const TrainArgument* culprit(const RunPlan& run, const TrainArgsValidator& validate) {
  const TrainArgument* found = nullptr;
  for (size_t skip = 0; skip < run.arguments.size(); ++skip) {
    std::vector<TrainArgument> rest = run.arguments;
    rest.erase(rest.begin() + std::ptrdiff_t(skip));
    if (!problemWith(flattenArguments(rest), validate)) {
      if (found != nullptr) return nullptr;
      found = &run.arguments[skip];
    }
  }
  return found;
}

}  // namespace

void validateRuns(const std::vector<RunPlan>& runs, const TrainArgsValidator& validate) {
  for (const RunPlan& run : runs) {
    const std::optional<std::string> problem = problemWith(run.trainArgs(), validate);
    if (!problem) continue;
    if (const TrainArgument* blame = culprit(run, validate)) {
      TETRAD_FAIL(InvalidArgument, "{}: key '{}' in {} (run {}): {}", blame->where.toString(),
                  blame->key, blame->table, run.name, *problem);
    }
    TETRAD_FAIL(InvalidArgument, "{}: [[method]] '{}' on [[cluster]] '{}' (run {}): {}",
                run.methodWhere.toString(), run.methodLabel, run.clusterLabel, run.name, *problem);
  }
}

}  // namespace tetrad::experiment
