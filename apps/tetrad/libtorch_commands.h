// The subcommands that need LibTorch from their first step, by name and
// description. Their own *_command.cc files are linked into tetrad-torch
// only; the front end `tetrad` registers a forwarding entry for each
// (front/libtorch_commands.cc) that hands the whole command line, --help
// included, to tetrad-torch (train/libtorch_parts.h says why there are two
// programs).
#pragma once

namespace tetrad::app {

struct LibTorchCommand {
  const char* name;
  const char* description;
};

// `tetrad bench NAME`.
inline constexpr LibTorchCommand kBenchCheckpoint{
    "checkpoint", "Checkpoint write and read-back time vs a plain file write of the same bytes"};
inline constexpr LibTorchCommand kBenchSched{
    "sched",
    "Scheduling policies vs none on a simulated star: simulated iteration time beside the "
    "pipeline model's prediction"};
inline constexpr LibTorchCommand kBenchSync{
    "sync", "Parameter server vs ring all-reduce, and Local SGD vs BSP, simulated"};
inline constexpr LibTorchCommand kBenchTrainOverhead{
    "train-overhead", "Single-worker training throughput: tetrad trainer vs a plain LibTorch loop"};

inline constexpr LibTorchCommand kLibTorchBenchCommands[] = {kBenchCheckpoint, kBenchSched,
                                                             kBenchSync, kBenchTrainOverhead};

}  // namespace tetrad::app
