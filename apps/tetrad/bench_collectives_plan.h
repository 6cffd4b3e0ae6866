// Plan of `tetrad bench collectives`: the command-line flags, and the
// validated plan made from them (launch options, algorithms, sizes, op,
// wire, iteration counts and the α–β model parameters where they apply).
//
// makePlan() checks every flag and throws InvalidArgument with one line on
// bad input. On a simulated cluster it picks SimGrid's plain CM02 network
// model without cross traffic unless --net-model or --sim-cfg names one, so
// that the table compares algorithms by their α–β cost. A named model
// (--net-model lv08|cm02|profile:FILE) also corrects the model column with
// its per-size factors; under MPI a profile gives the model column its
// calibrated network (unless --alpha-beta is given). The plan is built once on
// the main thread before launch and then only read, by every rank.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_cost.h"
#include "tetrad/launch/launcher.h"

namespace tetrad::app::bench_collectives {

struct BenchFlags {
  std::string cluster = "sim:8x10Gbps,25us";
  int workers = 0;
  std::string algorithms;  // empty: all the engine supports
  std::string minBytes = "4K";
  std::string maxBytes = "64M";
  double stepFactor = 2;
  int iters = 0;    // 0: 2 on a simulated cluster (times are deterministic), 20 under MPI
  int warmup = -1;  // -1: 0 simulated, 5 under MPI
  bool payloadFree = false;
  std::string op = "sum";
  std::string wire = "fp32";
  double timeout = 300;
  std::vector<std::string> simConfig;
  std::string netModel;   // --net-model (model/netprofile/net_model_choice.h)
  std::string alphaBeta;  // "BW,LAT": the α–β model of a real network (MPI only)
};

struct BenchPlan {
  LaunchOptions launch;
  std::vector<AllreduceAlgorithm> algorithms;
  std::vector<size_t> counts;  // floats per size
  ReduceOp op = ReduceOp::kSum;
  WirePrecision wire = WirePrecision::kFloat32;
  int iters = 0;
  int warmup = 0;
  // α–β parameters where the model applies: a star (every algorithm), or
  // hierarchical all-reduce on a two-level cluster (`twoLevel`); under MPI
  // the network the user describes with --alpha-beta.
  std::optional<CostParams> model;
  bool twoLevel = false;
  bool mpi = false;
  std::string netModel;  // the name printed in the header ("" none chosen)
};

// Validates `flags` and fills in the engine-dependent defaults.
BenchPlan makePlan(const BenchFlags& flags);

}  // namespace tetrad::app::bench_collectives
