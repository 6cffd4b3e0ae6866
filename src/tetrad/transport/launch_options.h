// LaunchOptions: what the launcher (launch/launcher.h) needs to start a run
// on either engine, and the worker function it runs on every rank. In the
// transport layer so that the engines (transport/engines.h) see them without
// seeing the launcher, which sits above both.
//
// Thread-safety: plain values.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad {

struct LaunchOptions {
  // "mpi" or "sim:..." (see above).
  std::string cluster = "sim:4x10Gbps,25us";
  // Number of ranks for a simulated cluster whose spec does not fix it
  // (e.g. "sim:10Gbps,25us" or a platform file). 0: take it from the spec.
  int workers = 0;
  // Timeout of every wait, in seconds of the engine's clock.
  double timeoutSeconds = 120;
  // Simulation only: messages carry sizes but no bytes (see transport.h).
  bool payloadFree = false;
  // Simulation only: extra SimGrid configuration items, e.g.
  // "network/model:CM02" (passed as --cfg=ITEM).
  std::vector<std::string> simConfig;
  // Simulation only: show SimGrid's own log messages.
  bool simVerbose = false;
  // Simulation only: the analytic engine (transport/analytic_network.h):
  // collectives in closed form, contention-free. Needs payloadFree, a star
  // or two-level cluster and CM02 without cross traffic (InvalidArgument).
  bool analyticCollectives = false;
};

using WorkerFn = std::function<void(Transport&)>;

// fixedHostCount() (launch/launcher.h) of an XML platform: its hosts are
// known only once the platform is loaded.
constexpr int kHostsOfPlatformFile = -1;

}  // namespace tetrad
