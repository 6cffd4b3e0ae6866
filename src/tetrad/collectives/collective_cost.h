// Analytic α–β(–γ) cost model of the collectives, in seconds.
//
// α is the latency of one message, β the time per byte on a link (1 /
// bandwidth), γ the time per byte of local reduction (0 when computation is
// free, as in the simulator). Each function follows the algorithm as
// implemented, step by step: per step the cost is α plus the largest message
// of that step times β (plus γ for the bytes reduced), with the exact block
// sizes of partition.h, so it is exact on a contention-free full-duplex star
// (e.g. SimGrid's CM02 model without cross traffic). The closed forms are in
// each algorithm's file and in docs/algorithms.md.
//
// Hierarchical all-reduce uses (intraAlpha, intraBeta) inside a node and
// (alpha, beta) between node leaders, with ranksPerNode ranks per node.
// kNative has no model (Unsupported); kAuto costs its fastest candidate for
// the vector (allreduce_auto.h). All-reduce takes the wire precision
// of AllreduceOptions: a 16-bit wire halves every message's bytes.
//
// Per-size factors (a calibrated network profile, transport/piecewise_factor.h)
// correct every message of m bytes: α·latencyFactor(m) + m·β/bandwidthFactor(m),
// at every level, as the simulator's factor callbacks do.
//
// TCP-gamma (SimGrid's network/TCP-gamma, 4 MiB by default under its CM02
// family of models): a flow's rate is at most tcpGamma / (2·α), the TCP
// window over the round trip, before the bandwidth factor; a message of m
// bytes then costs α·latencyFactor(m) + m·max(β, 2α/tcpGamma)/bandwidthFactor(m).
// It matters where bandwidth × latency is large (400 Gb/s at 1 ms: the
// window allows 2 GB/s). tcpGamma 0: no bound (plain α–β).
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/reduce_scatter.h"
#include "tetrad/transport/piecewise_factor.h"

namespace tetrad {

struct CostParams {
  double alpha = 0;  // seconds per message
  double beta = 0;   // seconds per byte sent
  double gamma = 0;  // seconds per byte reduced
  // Hierarchical all-reduce only.
  int ranksPerNode = 1;
  double intraAlpha = 0;
  double intraBeta = 0;
  // Per-size corrections of α and β (empty: 1).
  PiecewiseFactor latencyFactor = {};
  PiecewiseFactor bandwidthFactor = {};
  // Bytes; 0: no window bound (see above).
  double tcpGamma = 0;
};

// `count` floats per rank (the vector being reduced), sent as `wire`
// (wireElementBytes(wire) bytes per element on the wire and in γ).
double allreduceCost(AllreduceAlgorithm algorithm, int p, size_t count, const CostParams& params,
                     WirePrecision wire = WirePrecision::kFloat32);
// `count` floats per rank in, p·count out.
double allgatherCost(AllgatherAlgorithm algorithm, int p, size_t count, const CostParams& params);
// `bytes` from the root.
double broadcastCost(BroadcastAlgorithm algorithm, int p, size_t bytes, const CostParams& params);
// `count` floats per rank in, a block of about count / p out.
double reduceScatterCost(ReduceScatterAlgorithm algorithm, int p, size_t count,
                         const CostParams& params);
double barrierCost(int p, const CostParams& params);

}  // namespace tetrad
