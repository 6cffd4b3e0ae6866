#include "tetrad/transport/sim/platform.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <simgrid/Exception.hpp>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>
#include <stdexcept>

#include "tetrad/core/error.h"

namespace tetrad::sim {
namespace {

namespace s4u = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

// Host speed in flop/s. Irrelevant to tetrad: compute time is injected with
// sleep_for, never as flops.
constexpr double kHostSpeed = 1e9;

s4u::Link* createPrivateLink(s4u::NetZone* zone, const std::string& name, const LinkSpec& link) {
  // Half the end-to-end latency in each private link: host -> switch -> host
  // crosses two of them.
  return zone->create_split_duplex_link(name, link.bandwidth)
      ->set_latency(link.latency / 2)
      ->seal();
}

// Messages a rank sends to itself (a worker and its colocated parameter-server
// shard) cross a loopback link: shared memory, not the network. 50 GB/s is a
// memory copy on current servers; no latency.
constexpr double kLoopbackBandwidth = 50e9;

s4u::Link* createLoopback(s4u::NetZone* zone, const std::string& name) {
  return zone->create_link(name, kLoopbackBandwidth)
      ->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE)
      ->seal();
}

// Attaches `host` to a star zone through its own private link.
void attachToStar(s4u::NetZone* zone, NetPoint* point, NetPoint* gateway, s4u::Link* link) {
  zone->add_route(point, nullptr, gateway, nullptr,
                  {s4u::LinkInRoute(link, s4u::LinkInRoute::Direction::UP)}, true);
}

// A host's route to itself in a star zone (see kLoopbackBandwidth).
void addStarLoopback(s4u::NetZone* zone, s4u::Host* host) {
  zone->add_route(host->get_netpoint(), host->get_netpoint(), nullptr, nullptr,
                  {s4u::LinkInRoute(createLoopback(zone, host->get_name() + "-loopback"))}, false);
}

std::vector<s4u::Host*> buildStar(const ClusterSpec& spec, int hostCount) {
  s4u::NetZone* zone = s4u::create_star_zone("star");
  std::vector<s4u::Host*> hosts;
  for (int i = 0; i < hostCount; ++i) {
    s4u::Host* host = zone->create_host(fmt::format("host{}", i), kHostSpeed)->seal();
    attachToStar(zone, host->get_netpoint(), nullptr,
                 createPrivateLink(zone, fmt::format("link{}", i), spec.link));
    addStarLoopback(zone, host);
    hosts.push_back(host);
  }
  zone->seal();
  return hosts;
}

std::vector<s4u::Host*> buildTwoLevel(const ClusterSpec& spec) {
  s4u::NetZone* top = s4u::create_star_zone("cluster");
  std::vector<s4u::Host*> hosts;
  for (int n = 0; n < spec.nodes; ++n) {
    s4u::NetZone* node = s4u::create_star_zone(fmt::format("node{}", n));
    node->set_parent(top);
    NetPoint* gateway = node->create_router(fmt::format("node{}-gw", n));
    node->add_route(gateway, nullptr, nullptr, nullptr, {}, true);
    for (int g = 0; g < spec.ranksPerNode; ++g) {
      std::string name = fmt::format("node{}-rank{}", n, g);
      s4u::Host* host = node->create_host(name, kHostSpeed)->seal();
      attachToStar(node, host->get_netpoint(), nullptr,
                   createPrivateLink(node, name + "-link", spec.intraLink));
      addStarLoopback(node, host);
      hosts.push_back(host);
    }
    node->seal();
    attachToStar(top, node->get_netpoint(), gateway,
                 createPrivateLink(top, fmt::format("node{}-uplink", n), spec.link));
  }
  top->seal();
  return hosts;
}

// Fat-tree and torus leaves: one host per leaf, kept in leaf-id order.
s4u::ClusterCallbacks leafCallbacks(std::vector<s4u::Host*>& hosts) {
  s4u::ClusterCallbacks callbacks(
      [&hosts](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
        s4u::Host* host = zone->create_host(fmt::format("host{}", id), kHostSpeed)->seal();
        if (hosts.size() <= id) hosts.resize(id + 1, nullptr);
        hosts[id] = host;
        return std::make_pair(host->get_netpoint(), static_cast<NetPoint*>(nullptr));
      });
  callbacks.loopback = [](s4u::NetZone* zone, const std::vector<unsigned long>&, unsigned long id) {
    return createLoopback(zone, fmt::format("host{}-loopback", id));
  };
  return callbacks;
}

std::vector<s4u::Host*> buildFatTree(const ClusterSpec& spec) {
  std::vector<s4u::Host*> hosts;
  const FatTreeShape& tree = spec.fatTree;
  s4u::NetZone* zone = s4u::create_fatTree_zone(
      "fattree", nullptr, s4u::FatTreeParams(tree.levels, tree.down, tree.up, tree.count),
      leafCallbacks(hosts), spec.link.bandwidth, spec.link.latency,
      s4u::Link::SharingPolicy::SPLITDUPLEX);
  zone->seal();
  return hosts;
}

std::vector<s4u::Host*> buildTorus(const ClusterSpec& spec) {
  std::vector<s4u::Host*> hosts;
  std::vector<unsigned long> dims(spec.torusDims.begin(), spec.torusDims.end());
  s4u::NetZone* zone =
      s4u::create_torus_zone("torus", nullptr, dims, leafCallbacks(hosts), spec.link.bandwidth,
                             spec.link.latency, s4u::Link::SharingPolicy::SPLITDUPLEX);
  zone->seal();
  return hosts;
}

std::vector<s4u::Host*> loadFile(const ClusterSpec& spec) {
  std::error_code error;
  TETRAD_CHECK(std::filesystem::is_regular_file(spec.file, error), InvalidArgument,
               "invalid cluster spec '{}': platform file '{}' does not exist", spec.text,
               spec.file);
  s4u::Engine* engine = s4u::Engine::get_instance();
  engine->load_platform(spec.file);
  std::vector<s4u::Host*> hosts = engine->get_all_hosts();  // sorted by name
  // Netpoint ids grow in creation order, i.e. document order.
  std::sort(hosts.begin(), hosts.end(), [](const s4u::Host* a, const s4u::Host* b) {
    return a->get_netpoint()->id() < b->get_netpoint()->id();
  });
  TETRAD_CHECK(!hosts.empty(), InvalidArgument, "invalid cluster spec '{}': no host in '{}'",
               spec.text, spec.file);
  return hosts;
}

}  // namespace

std::vector<s4u::Host*> buildPlatform(const ClusterSpec& spec, int hostCount) {
  try {
    switch (spec.topology) {
      case Topology::kStar:
        return buildStar(spec, spec.hosts > 0 ? spec.hosts : hostCount);
      case Topology::kTwoLevel:
        return buildTwoLevel(spec);
      case Topology::kFatTree:
        return buildFatTree(spec);
      case Topology::kTorus:
        return buildTorus(spec);
      case Topology::kFile:
        return loadFile(spec);
    }
  } catch (const simgrid::Exception& e) {
    TETRAD_FAIL(InvalidArgument, "invalid cluster spec '{}': SimGrid rejected it: {}", spec.text,
                e.what());
  } catch (const std::invalid_argument& e) {
    TETRAD_FAIL(InvalidArgument, "invalid cluster spec '{}': SimGrid rejected it: {}", spec.text,
                e.what());
  }
  TETRAD_FAIL(InvalidArgument, "invalid cluster spec '{}': unknown topology", spec.text);
}

}  // namespace tetrad::sim
