// Running the runs of a sweep: one `tetrad train` child process per run, at
// most `jobs` at a time, each in its own folder OUT/<run name>/.
//
// A run whose folder holds the summary.json of a finished or diverged run is
// done and skipped, so an interrupted sweep resumes where it stopped. A run
// that a signal interrupted (its summary says "interrupted", after writing a
// checkpoint: Ctrl-C reaches the children too) is resumed from that
// checkpoint with `--resume`. A diverged run (the non-finite guard stopped
// it) is a result, not a failure. Before a run starts, its folder
// gets run.json (labels, seed, hash, command line, and the tuning fields of
// RunPlan) and a fresh train.log that
// receives the child's stdout and stderr. A failed run is reported with the
// tail of its log and does not stop the others — except a configuration
// error (the child exits with status 2, `tetrad train`'s code for bad input):
// then no further run starts, since the sweep file needs fixing. Progress
// (runs done/total, elapsed time, ETA) goes to `progress`. At the end
// OUT/results.csv and OUT/results.jsonl are rewritten from the run folders.
//
// Thread-safety: call from one thread; it waits for its children itself.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "tetrad/experiment/run_plan.h"

namespace tetrad::experiment {

struct SweepOptions {
  std::string outDir;
  int jobs = 1;
  std::string exe;                // the tetrad binary the children run
  std::string mpirun = "mpirun";  // for MPI clusters
  std::string sweepFile;          // recorded in run.json and printed
  // Threads of each simulated training run (childCommand); 0: leave it to
  // `tetrad train` (every core).
  int simThreads = 0;
  // Named in the progress header, e.g. "lr tuning" ("": the sweep's runs).
  std::string phase;
};

struct SweepOutcome {
  size_t total = 0;
  size_t alreadyDone = 0;  // skipped: summary.json was there
  size_t ok = 0;           // finished now
  size_t diverged = 0;     // stopped by the non-finite guard now (a result)
  size_t interrupted = 0;  // stopped by a signal after a checkpoint (resumable)
  size_t failed = 0;
  size_t notStarted = 0;                // left out after a configuration error
  std::string configError;              // the first configuration error, or ""
  std::vector<std::string> failedRuns;  // names of the failed and interrupted runs
};

// Runs `runs` (see the header comment) and writes the results files.
SweepOutcome runSweep(const std::vector<RunPlan>& runs, const SweepOptions& options,
                      std::FILE* progress);

}  // namespace tetrad::experiment
