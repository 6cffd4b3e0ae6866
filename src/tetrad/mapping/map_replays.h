// The retimes a method map needs (`tetrad advise --map`, advise_map.cc): one
// timing-only replay per finished run and map cell, up to the iteration where
// the run first reached its target (train/timing/retime.h, toTarget).
//
// With one job they run in this process, one after another (a simulation
// owns the process while it runs). With more, they are cut into shards of
// consecutive replays (about eight per job), each a child process
// `tetrad retime --batch SHARD --to-target` of the same binary, `jobs` at a
// time; their JSON lines are read back from their logs. Both give the same
// figures up to rounding (~1e-16 relative): SimGrid's clock is not reset
// between the simulations of one process, and a replay's times are
// differences from where its simulation started.
// (A shard, not a process per replay: a process starts in ~0.7 s, LibTorch's
// static initialisation, longer than many replays take.)
//
// A replay the retime refuses (InvalidArgument or Unsupported: a "refusal"
// line from a child) comes back with its reason in `refusal`; any other
// failure throws Error naming the shard's first run and its log's tail.
//
// replayCached() keeps every result in a cache file (the sweep folder's
// map_replays.jsonl) keyed by the run's config.json and summary.json, the
// cell, the network model and the tetrad binary (its size and modification
// time): drawing a map again — another noise ratio, another grid sharing
// cells, a method added — replays only what changed. Lines of another build
// are dropped when the file is rewritten.
//
// Thread-safety: one call at a time, from the main thread.
#pragma once

#include <cmath>
#include <string>
#include <vector>

namespace tetrad::mapping {

struct MapReplay {
  std::string run;       // the run folder
  std::string cluster;   // the cell's network, "sim:..."
  std::string netModel;  // "": the run's own
  std::string compute;   // "": the run's own; else its compute model scaled (scaledCompute)
};

struct MapReplayResult {
  double timeToTarget = NAN;      // NaN: never reached on the replay
  double timePerIteration = NAN;  // over the replayed iterations
  std::string refusal;            // non-empty: not replayed, and why
};

// Runs every replay, `jobs` at a time (>= 1); results in the order of
// `replays`. `exe` is the tetrad binary the children run (with one job, the
// replays run in this process when it is `thisBuild`, this build's binary,
// or this process's own); `scratch` a folder for their logs (created;
// removed afterwards unless a replay failed).
// Prints a progress line to stdout after every tenth of the replays.
std::vector<MapReplayResult> runMapReplays(const std::vector<MapReplay>& replays, int jobs,
                                           const std::string& exe, const std::string& thisBuild,
                                           const std::string& scratch);

// runMapReplays() for the replays `cacheFile` does not hold; then the file
// holds them all. Prints how many came from the cache.
std::vector<MapReplayResult> replayCached(const std::vector<MapReplay>& replays, int jobs,
                                          const std::string& exe, const std::string& thisBuild,
                                          const std::string& scratch, const std::string& cacheFile);

}  // namespace tetrad::mapping
