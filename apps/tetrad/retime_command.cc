// `tetrad retime RUN --cluster SPEC`: a finished run of a synchronous method
// timed on another network without training again (src/tetrad/train/timing/retime.h,
// docs/training.md "Retiming a run").
//
// `tetrad retime --batch FILE` replays many in one process (the method map's
// children, mapping/map_replays.h: starting a process costs LibTorch's ~0.7 s of
// static initialisation, more than many replays). FILE holds one JSON object
// per line, {"run": DIR, "cluster": "sim:...", "net_model": "", "compute": ""}; each gives
// one line of output, in order: {"run", "cluster", "time_to_target" (null:
// never reached), "time_per_iteration"} or, where the retime refused it,
// {"run", "cluster", "refusal": "..."}.
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/train/timing/retime.h"

namespace tetrad::app {
namespace {

using Json = nlohmann::json;

// One replay of a batch: its output line.
Json batchLine(const train::RetimeRequest& request) {
  Json line = {{"run", request.run}, {"cluster", request.cluster}};
  const train::RetimeOutcome outcome = train::retimeOrRefusal(request);
  if (!outcome.refusal.empty()) {
    line["refusal"] = outcome.refusal;
  } else {
    line["time_to_target"] = outcome.timeToTarget >= 0 ? Json(outcome.timeToTarget) : Json(nullptr);
    line["time_per_iteration"] = outcome.timePerIteration;
  }
  return line;
}

void runBatch(const std::string& file, const train::RetimeRequest& common) {
  std::ifstream in(file);
  TETRAD_CHECK(in.good(), InvalidArgument, "retime --batch: cannot read '{}'", file);
  std::string text;
  for (int number = 1; std::getline(in, text); ++number) {
    if (text.empty()) continue;
    train::RetimeRequest request = common;
    try {
      const Json j = Json::parse(text);
      request.run = j.at("run").get<std::string>();
      request.cluster = j.at("cluster").get<std::string>();
      const std::string netModel = j.value("net_model", "");
      if (!netModel.empty()) request.netModel = netModel;
      const std::string compute = j.value("compute", "");
      if (!compute.empty()) request.compute = compute;
    } catch (const Json::exception& e) {
      throw InvalidArgument(
          fmt::format("retime --batch: {} line {}: not {{\"run\", \"cluster\"[, \"net_model\", "
                      "\"compute\"]}} ({})",
                      file, number, e.what()));
    }
    std::printf("%s\n", batchLine(request).dump().c_str());
    std::fflush(stdout);
  }
}

void addRetimeCommand(CommandGroups& groups) {
  auto request = std::make_shared<train::RetimeRequest>();
  auto json = std::make_shared<bool>(false);
  auto profile = std::make_shared<std::string>();
  auto batch = std::make_shared<std::string>();
  CLI::App* cmd = groups.root->add_subcommand(
      "retime",
      "Time a finished synchronous run on another network (timing-only replay of its iterations)");
  cmd->add_option("run", request->run, "The run folder (config.json, summary.json, metrics.jsonl)");
  cmd->add_option("--cluster", request->cluster, "The network to time it on: sim:SPEC");
  cmd->add_option("--batch", *batch,
                  "Replay many runs in one process: a file of JSON lines {\"run\", \"cluster\"[, "
                  "\"net_model\", \"compute\"]}; one JSON line out per replay");
  cmd->add_option("--net-model", request->netModel,
                  "Network model (default: the run's): " + model::netModelHelp())
      ->check(kNetModelName);
  cmd->add_option("--net-profile", *profile,
                  "A calibrated profile (tetrad calibrate): the same as --net-model profile:FILE");
  cmd->add_option("--compute", request->compute,
                  "Compute model (default: the run's; required when it was measured)");
  cmd->add_option("--codec-cost", request->codecCost,
                  "Codec charge: none, profile:NAME|FILE (default: the run's; a measured one "
                  "becomes profile:host-cpu)");
  cmd->add_option("--out", request->out,
                  "Keep the timing-only run in this folder (default: a temporary one, removed)");
  cmd->add_flag("--as-run", request->asRun,
                "Write --out as a run folder of this method on the new network (the original's "
                "accuracy on the retimed clock; the replay in DIR/timing-only)");
  cmd->add_flag("--to-target", request->toTarget,
                "Replay only up to the iteration where the run first reached its target (its "
                "time to target, sooner)");
  cmd->add_flag("--json", *json, "One JSON object (summary.json's field names) instead of a table");
  cmd->callback([request, json, profile, batch] {
    if (!profile->empty()) {
      TETRAD_CHECK(request->netModel.empty(), InvalidArgument,
                   "retime: give --net-model or --net-profile, not both");
      request->netModel = "profile:" + *profile;
    }
    if (!batch->empty()) {
      TETRAD_CHECK(request->run.empty() && request->cluster.empty() && request->out.empty() &&
                       !request->asRun,
                   InvalidArgument,
                   "retime --batch: the runs and clusters come from the file; RUN, --cluster, "
                   "--out and --as-run do not go with it");
      runBatch(*batch, *request);
      return;
    }
    TETRAD_CHECK(!request->run.empty(), InvalidArgument,
                 "retime: give the run folder (or --batch FILE)");
    TETRAD_CHECK(!request->cluster.empty(), InvalidArgument,
                 "retime: --cluster is required (sim:SPEC)");
    const train::RetimeResult result = train::retimeRun(*request);
    std::fputs((*json ? result.toJson() + "\n" : result.toText()).c_str(), stdout);
    std::fflush(stdout);
  });
}

CommandRegistration registration(addRetimeCommand);

}  // namespace
}  // namespace tetrad::app
