// runSimulation (declared in transport/engines.h): one SimGrid engine per
// call. Builds the platform, starts one actor per rank (rank r on host r),
// runs the engine to the end and rethrows the first error a rank threw after
// the other actors were killed. Several calls per process work one after the
// other; the engine's clock keeps counting across them, so each run measures
// time from its own start (SimWorld::startTime).
#include <fmt/format.h>
#include <xbt/log.h>

#include <memory>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <string>
#include <vector>

#include "tetrad/core/error.h"
#include "tetrad/transport/engines.h"
#include "tetrad/transport/sim/analytic_meetings.h"
#include "tetrad/transport/sim/cluster_spec.h"
#include "tetrad/transport/sim/platform.h"
#include "tetrad/transport/sim/sim_config.h"
#include "tetrad/transport/sim/sim_transport.h"

namespace tetrad {
namespace {

namespace s4u = simgrid::s4u;

void runRank(sim::SimWorld& world, sim::SimTransport& transport, const WorkerFn& worker) {
  try {
    worker(transport);
    transport.closeAnyReceives();
  } catch (const simgrid::ForcefulKillException&) {
    throw;  // killed because another rank failed: must unwind
  } catch (...) {
    world.fail(transport.rank(), std::current_exception());
  }
}

}  // namespace

void runSimulation(const LaunchOptions& options, const WorkerFn& worker) {
  sim::ClusterSpec spec = sim::parseClusterSpec(options.cluster);
  TETRAD_CHECK(options.timeoutSeconds > 0, InvalidArgument, "timeout must be positive, got {}",
               options.timeoutSeconds);
  if (spec.topology == sim::Topology::kStar && spec.hosts == 0) {
    sim::resolveRankCount(spec, options.workers, 0);  // throws without --workers
  }
  TETRAD_CHECK(!s4u::Engine::has_instance(), Unsupported,
               "a simulation is already running in this process (nested runSimulation)");

  // The log threshold is process-wide and survives engines: set it each run.
  xbt_log_control_set(options.simVerbose ? "root.thresh:info" : "root.thresh:critical");
  std::string program = "tetrad";
  std::string log = options.simVerbose ? "--log=root.thresh:info" : "--log=root.thresh:critical";
  std::vector<char*> argv = {program.data(), log.data(), nullptr};
  int argc = 2;
  s4u::Engine engine(&argc, argv.data());
  const sim::SimFactors factors = sim::applySimConfig(options.simConfig);

  std::vector<s4u::Host*> hosts = sim::buildPlatform(spec, options.workers);
  sim::installFactors(factors);
  int ranks = sim::resolveRankCount(spec, options.workers, static_cast<int>(hosts.size()));
  sim::SimWorld world(options.payloadFree, spec.ranksPerNode, s4u::Engine::get_clock());
  if (options.analyticCollectives) {
    world.setAnalytic(sim::AnalyticMeetings::make(spec, options.simConfig, factors.latency,
                                                  factors.bandwidth, options.payloadFree));
  }
  std::vector<std::unique_ptr<sim::SimTransport>> transports;
  for (int r = 0; r < ranks; ++r) {
    transports.push_back(
        std::make_unique<sim::SimTransport>(world, r, ranks, options.timeoutSeconds));
  }
  for (int r = 0; r < ranks; ++r) {
    sim::SimTransport* transport = transports[r].get();
    s4u::Actor::create(fmt::format("rank{}", r), hosts[r],
                       [&world, transport, &worker] { runRank(world, *transport, worker); });
  }
  engine.run();
  transports.clear();  // drops SimGrid handles while the engine still exists
  world.rethrowError();
}

}  // namespace tetrad
