// `tetrad elastic`: a training job under mpirun that survives lost workers
// and grows onto new ones (experiment/elastic_supervisor.h).
//
//   tetrad elastic --min-workers N --max-workers M [--hostfile FILE |
//                  --host-discovery CMD] [--max-restarts K]
//                  [--checkpoint-every I] [--out RUN] [--mpirun "CMD ARGS"]
//                  -- FLAGS OF tetrad train
//
// Without --hostfile or --host-discovery the job runs --max-workers ranks
// on this machine. Exit status: 0 finished, 1 stopped (below --min-workers,
// out of restarts), 2 bad input, 3 stopped by SIGINT/SIGTERM after a
// checkpoint (the same command continues it).
#include <fmt/format.h>

#include <ctime>
#include <sstream>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/experiment/elastic_supervisor.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"

namespace tetrad::app {
namespace {

std::vector<std::string> splitWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> words;
  for (std::string word; in >> word;) words.push_back(word);
  return words;
}

std::string defaultFolder() {
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", std::localtime(&now));
  return fmt::format("runs/elastic-{}", stamp);
}

struct ElasticFlags {
  experiment::ElasticOptions options;
  std::string mpirun = "mpirun";
  std::vector<std::string> training;  // after "--": train FLAGS
};

void runElastic(ElasticFlags& flags, const std::vector<std::string>& trainArgs) {
  experiment::ElasticOptions& o = flags.options;
  o.mpirun = splitWords(flags.mpirun);
  o.tetrad = childProgram();
  o.trainArgs = trainArgs;
  TETRAD_CHECK(!o.trainArgs.empty() && o.trainArgs.front() == "train", InvalidArgument,
               "tetrad elastic: give the training after '--': -- train FLAGS");
  o.trainArgs.erase(o.trainArgs.begin());
  if (o.folder.empty()) o.folder = defaultFolder();
  o.latestCheckpoint = [](const std::string& folder) {
    return train::CheckpointStore(folder, 0, 1).latestCompleteOfAnySize().iteration;
  };
  experiment::checkElasticOptions(o);
  experiment::ElasticSupervisor supervisor(o);
  const int status = supervisor.run();
  if (status != 0) std::exit(status);
}

const CommandRegistration registration([](CommandGroups& groups) {
  auto flags = std::make_shared<ElasticFlags>();
  CLI::App* cmd = groups.root->add_subcommand(
      "elastic", "Train under mpirun, surviving lost workers and growing onto new ones");
  experiment::ElasticOptions& o = flags->options;
  cmd->add_option("--min-workers", o.minWorkers, "Stop below this many workers (default 1)");
  cmd->add_option("--max-workers", o.maxWorkers, "At most this many workers")->required();
  cmd->add_option("--hostfile", o.hostfile, "Open MPI hostfile: HOST slots=N per line");
  cmd->add_option("--host-discovery", o.discovery,
                  "Shell command printing HOST[:SLOTS] lines, run at start, after a failure "
                  "and every --discovery-interval seconds");
  cmd->add_option("--discovery-interval", o.discoveryInterval,
                  "Seconds between discovery runs (default 5)");
  cmd->add_option("--max-restarts", o.maxRestarts,
                  "Restarts after lost workers before giving up (default 3)");
  cmd->add_option("--checkpoint-every", o.checkpointEvery,
                  "Iterations between checkpoints (default 50)");
  cmd->add_option("--out", o.folder, "Run folder (default runs/elastic-TIME)");
  cmd->add_option("--mpirun", flags->mpirun,
                  "mpirun and its options, as one string (default \"mpirun\")");
  cmd->add_option("training", flags->training, "After '--': train FLAGS (of tetrad train)");
  cmd->callback([flags] { runElastic(*flags, flags->training); });
});

}  // namespace
}  // namespace tetrad::app
