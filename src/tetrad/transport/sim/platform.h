// Platform: builds the SimGrid zones, links and hosts that a ClusterSpec
// describes (see cluster_spec.h for the grammar and what bandwidth and latency
// mean in each form), inside the current simgrid::s4u::Engine.
//
// Hosts are returned in rank order: rank r runs on hosts[r]. Links are
// SPLITDUPLEX (full duplex: each direction has the full bandwidth), so that
// a point-to-point message follows the α–β model exactly under
// --cfg=network/model:CM02 --cfg=network/crosstraffic:0.
//
// Known SimGrid 3.32 issue: in one process, loading an XML platform in an
// engine created after one that held a multi-level fat-tree (e.g.
// 2;4,4;1,2;1,2) crashes inside SimGrid (EngineImpl::presolve). Another spec
// in between avoids it; one run per process (the `tetrad` command) is safe.
//
// Thread-safety: call from the thread that owns the engine, before running it.
#pragma once

#include <vector>

#include "tetrad/transport/sim/cluster_spec.h"

namespace simgrid::s4u {
class Host;
}

namespace tetrad::sim {

// Builds the platform; `hostCount` is used only by a star spec that does not
// fix its size. Throws InvalidArgument for a missing or malformed XML file or
// a topology SimGrid rejects.
std::vector<simgrid::s4u::Host*> buildPlatform(const ClusterSpec& spec, int hostCount);

}  // namespace tetrad::sim
