// `tetrad retime RUN --cluster SPEC`: a finished run of a synchronous method
// timed on another network without training again (src/tetrad/train/timing/retime.h,
// docs/training.md "Retiming a run").
#include <cstdio>
#include <memory>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/train/timing/retime.h"

namespace tetrad::app {
namespace {

void addRetimeCommand(CommandGroups& groups) {
  auto request = std::make_shared<train::RetimeRequest>();
  auto json = std::make_shared<bool>(false);
  auto profile = std::make_shared<std::string>();
  CLI::App* cmd = groups.root->add_subcommand(
      "retime",
      "Time a finished synchronous run on another network (timing-only replay of its iterations)");
  cmd->add_option("run", request->run, "The run folder (config.json, summary.json, metrics.jsonl)")
      ->required();
  cmd->add_option("--cluster", request->cluster, "The network to time it on: sim:SPEC")->required();
  cmd->add_option("--net-model", request->netModel,
                  "Network model: lv08, cm02 or profile:FILE (default: the run's)");
  cmd->add_option("--net-profile", *profile,
                  "A calibrated profile (tetrad calibrate): the same as --net-model profile:FILE");
  cmd->add_option("--compute", request->compute,
                  "Compute model (default: the run's; required when it was measured)");
  cmd->add_option("--out", request->out,
                  "Keep the timing-only run in this folder (default: a temporary one, removed)");
  cmd->add_flag("--as-run", request->asRun,
                "Write --out as a run folder of this method on the new network (the original's "
                "accuracy on the retimed clock; the replay in DIR/timing-only)");
  cmd->add_flag("--json", *json, "One JSON object (summary.json's field names) instead of a table");
  cmd->callback([request, json, profile] {
    if (!profile->empty()) {
      TETRAD_CHECK(request->netModel.empty(), InvalidArgument,
                   "retime: give --net-model or --net-profile, not both");
      request->netModel = "profile:" + *profile;
    }
    const train::RetimeResult result = train::retimeRun(*request);
    std::fputs((*json ? result.toJson() + "\n" : result.toText()).c_str(), stdout);
    std::fflush(stdout);
  });
}

CommandRegistration registration(addRetimeCommand);

}  // namespace
}  // namespace tetrad::app
