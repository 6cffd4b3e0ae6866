// ElasticSupervisor: `tetrad elastic`, a training job that survives lost
// workers and grows onto new ones (torchrun's and horovodrun's elastic mode
// for tetrad; docs/reliability.md, "Elastic training").
//
// It starts `mpirun -np W [--host H] TETRAD train --cluster mpi ARGS
// --checkpoint-every N --out RUN` with the W <= --max-workers slots that
// the hosts offer (a hostfile, a discovery command's output, or this
// machine), and watches it:
//   - the job ends with status 0: done;
//   - a rank dies (mpirun names the ranks it saw die by a signal) or stalls
//     past the job's --timeout (the survivors' timeouts name the silent
//     rank) or its host leaves discovery: the job ends, and the supervisor
//     restarts it with `--resume RUN` on the workers left — an elastic
//     resize (rank_trainer_resize.cc) from the newest complete checkpoint —
//     unless fewer than --min-workers remain or --max-restarts are spent;
//   - discovery offers more slots: the supervisor sends SIGUSR1, which
//     mpirun forwards to every rank; the ranks stop at the next iteration
//     with a checkpoint (exit 3), and the job restarts on more workers.
// A job that fails without losing a rank (a bad flag, a diverged run) is
// not restarted: its error is the supervisor's.
//
// Every event is a line of RUN/elastic.jsonl (start, lost, grow, finished,
// stopped) with the iterations and seconds it cost: the iterations done
// since the checkpoint resumed from (done again), the seconds between that
// checkpoint and the failure, and the seconds from the failure until the
// resumed job logged its first new metrics line. Each attempt's output is
// RUN/elastic/attempt-K.log; summary.json gains an "elastic" object.
//
// Thread-safety: one thread runs a supervisor.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tetrad/experiment/elastic_hosts.h"

namespace tetrad::experiment {

struct ElasticOptions {
  int minWorkers = 1;
  int maxWorkers = 0;            // required
  std::string hostfile;          // at most one of hostfile and discovery
  std::string discovery;         // a shell command printing host[:slots] lines
  int maxRestarts = 3;           // restarts after failures (growing is not one)
  int64_t checkpointEvery = 50;  // iterations
  double discoveryInterval = 5;  // seconds between discovery runs
  std::vector<std::string> mpirun = {"mpirun"};  // with its options
  std::string tetrad;                            // the tetrad executable
  std::vector<std::string> trainArgs;            // `tetrad train` flags
  std::string folder;                            // the run folder
  // The iteration of the run folder's newest complete checkpoint, -1 when
  // none (train/checkpoint/checkpoint_store.h; passed in, as this layer
  // sits beside train/).
  std::function<int64_t(const std::string& folder)> latestCheckpoint;
};

// Checks the options (one line naming the problem: InvalidArgument).
void checkElasticOptions(const ElasticOptions& options);

class ElasticSupervisor {
 public:
  explicit ElasticSupervisor(ElasticOptions options);
  // Runs the job to its end; returns the process exit status (0: finished,
  // 1: stopped below --min-workers, out of restarts or failed, 3: stopped by
  // SIGINT/SIGTERM after a checkpoint). Prints one line per event.
  int run();

 private:
  struct Attempt;
  std::vector<ElasticHost> currentHosts() const;
  int launch(Attempt& attempt);
  void event(const std::string& json);
  int finish(int status, const std::string& line);

  ElasticOptions options_;
  std::vector<ElasticHost> hosts_;
  int restarts_ = 0;
  int64_t iterationsLost_ = 0;
  double secondsLost_ = 0;
  std::vector<std::string> events_;
};

}  // namespace tetrad::experiment
