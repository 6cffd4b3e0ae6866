// NetModelChoice: the network model of a simulated run, by name, and what it
// means for the simulator (SimGrid items) and for the cost models (per-size
// factors of α and β). One parser serves `tetrad train`, `tetrad bench
// collectives`, `tetrad advise` and sweep files (--net-model).
//
//   lv08          SimGrid's default: its TCP model LV08 (latency × 13.01,
//                 bandwidth × 0.97, cross traffic of 5% of the reverse flow).
//                 Items: network/model:LV08. The cost models charge
//                 latency × 13.01 and bandwidth × 0.97/1.05 (the cross
//                 traffic of a link busy in both directions, as in the
//                 all-reduce algorithms; one-way traffic gets 0.97).
//   cm02          the α–β model: CM02 without cross traffic, no correction.
//                 Items: network/model:CM02, network/crosstraffic:0.
//   profile:FILE  a calibrated network (network_profile.h, `tetrad
//                 calibrate`): CM02 without cross traffic plus the profile's
//                 per-size latency and bandwidth factors, in SimGrid's
//                 interval syntax. The cluster spec keeps the physical link
//                 values; the factors are relative to them (the profile's
//                 nominal link).
//
// Every model of SimGrid's CM02 family (all three) bounds a flow's rate by
// TCP-gamma / (2·latency) (4 MiB, network/TCP-gamma); the cost models apply
// the same bound (collectives/collective_cost.h).
//
// The default of `tetrad train`, sweeps and `tetrad advise` is cm02
// (defaultNetModel): docs/fidelity.md measured it within 1–7% of a real
// 200 Mbit/s link from 256 KB up, where LV08 was up to 1.29× slow and
// 3.6–9.3× at 4–16 KB. An empty name chooses nothing: SimGrid's own default
// (LV08) or whatever --sim-cfg items say.
//
// Thread-safety: plain values; functions are reentrant.
#pragma once

#include <string>
#include <vector>

#include "tetrad/transport/piecewise_factor.h"

namespace tetrad::model {

struct NetModelChoice {
  std::string name;                    // "lv08", "cm02", "profile:FILE" or ""
  std::vector<std::string> simConfig;  // SimGrid items that select it
  PiecewiseFactor latencyFactor;       // for the cost models (empty: 1)
  PiecewiseFactor bandwidthFactor;
  // profile only: the nominal link it was calibrated on ("200Mbps,20us").
  std::string profileLink;
  double linkBandwidth = 0;  // bytes/s
  double linkLatency = 0;    // seconds
  // SimGrid's network/TCP-gamma, bytes (0 for the empty name: unknown).
  double tcpGamma = 0;
};

// SimGrid's default network/TCP-gamma (bytes).
inline constexpr double kSimGridTcpGamma = 4194304;

// The model a simulated run gets when --net-model is not given: "cm02",
// or "" when `userItems` (--sim-cfg) choose the network model themselves.
std::string defaultNetModel(const std::vector<std::string>& userItems);

// One row per network model: adding a model is adding a row (its name, its
// help line and how it resolves) in net_model_choice.cc; the parser, the
// commands' help texts and the name checks read the table.
struct NetModelRow {
  const char* name;   // "cm02", or a prefix ending in ':' ("profile:") for a
                      // family that takes an argument
  const char* usage;  // as the help shows it: "cm02", "profile:FILE"
  std::string help;   // one line
  NetModelChoice (*resolve)(const std::string& argument);  // after the prefix
};
const std::vector<NetModelRow>& netModelTable();

// "cm02 (…, the default), lv08 (…) or profile:FILE (…)", for --help.
std::string netModelHelp();
// "cm02, lv08, profile:FILE", for error messages.
std::string knownNetModels();
// Whether `name` names a row (an exact name, or a prefix with an argument).
bool isNetModelName(const std::string& name);

// Throws InvalidArgument naming the problem: an unknown name, or a profile
// that cannot be loaded (network_profile.h).
NetModelChoice resolveNetModel(const std::string& name);

// The items of a run: the choice's, then `userItems` (--sim-cfg). Throws
// InvalidArgument when a model is chosen and `userItems` also sets the
// network model or its factors.
std::vector<std::string> combineSimConfig(const NetModelChoice& choice,
                                          const std::vector<std::string>& userItems);

// The name a run records when none was given: "lv08" (SimGrid's default),
// or "sim-cfg:MODEL" when --sim-cfg items choose network/model:MODEL.
std::string impliedNetModel(const std::vector<std::string>& userItems);

}  // namespace tetrad::model
