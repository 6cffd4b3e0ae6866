// Cluster specs: the text after "--cluster sim:" that describes a simulated
// platform, parsed into a ClusterSpec value (platform.h turns it into SimGrid
// zones). Pure parsing: no SimGrid here, so it is cheap to test.
//
// Grammar (BW = bandwidth, e.g. 10Gbps, 1.25GBps; LAT = latency, e.g. 25us;
// see core/units.h for all units):
//
//   sim:[N x]BW,LAT            flat star. N hosts (or --workers when N is
//                              omitted), each with a private full-duplex link
//                              to one non-blocking switch. A point-to-point
//                              message of n bytes takes LAT + n/BW: LAT is the
//                              end-to-end latency (each private link carries
//                              LAT/2 per direction), BW the per-host bandwidth
//                              in each direction.            sim:8x10Gbps,25us
//   sim:NxG:BW1,LAT1:BW2,LAT2  two-level: N nodes of G ranks. Inside a node,
//                              a star of private links (BW1, LAT1 as above);
//                              each node has one full-duplex uplink (BW2, LAT2)
//                              to a top switch. Across nodes a message crosses
//                              both levels: LAT1 + LAT2 + n/min(BW1, BW2).
//                              ranksPerNode() = G.  sim:4x8:100Gbps,2us:10Gbps,25us
//   sim:fattree:L;D1,..,DL;U1,..,UL;C1,..,CL:BW,LAT
//                              SimGrid fat-tree (levels; down-links, up-links
//                              and parallel links per level, leaves first);
//                              hosts = D1*..*DL. BW and LAT are per link: a
//                              message through h links takes h*LAT + n/BW.
//                              Quote it in a shell (';').
//                                              sim:fattree:2;4,4;1,2;1,2:10Gbps,25us
//   sim:torus:X[xY[xZ..]]:BW,LAT
//                              SimGrid torus; hosts = X*Y*..; BW, LAT per link
//                              (hop), as for the fat-tree.  sim:torus:4x4x2:10Gbps,25us
//   sim:FILE.xml               a SimGrid XML platform file; ranks are its hosts
//                              in document order.      sim:platforms/cluster.xml
//
// With --workers W > 0 the run uses the first W hosts (W must not exceed the
// platform's hosts); with W = 0 it uses all of them. Malformed specs throw
// InvalidArgument with one line naming the spec and the problem.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace tetrad::sim {

enum class Topology { kStar, kTwoLevel, kFatTree, kTorus, kFile };

// One class of links: bandwidth in bytes/s, latency in seconds.
struct LinkSpec {
  double bandwidth = 0;
  double latency = 0;
};

struct FatTreeShape {
  unsigned levels = 0;
  std::vector<unsigned> down, up, count;  // one entry per level, leaves first
};

struct ClusterSpec {
  std::string text;  // the whole "sim:..." string, for messages
  Topology topology = Topology::kStar;
  // Hosts the spec fixes; 0 when it does not (star without N, XML file).
  int hosts = 0;
  // Star: each host's private link. Two-level: the node uplinks.
  // Fat-tree, torus: every link.
  LinkSpec link;
  // Two-level only: the private links inside a node.
  LinkSpec intraLink;
  int nodes = 0;                    // two-level
  int ranksPerNode = 1;             // two-level: G; otherwise 1
  FatTreeShape fatTree;             // fat-tree
  std::vector<unsigned> torusDims;  // torus
  std::string file;                 // XML platform file
};

// Parses "sim:...". Throws InvalidArgument on any malformed spec.
ClusterSpec parseClusterSpec(std::string_view cluster);

// Ranks of the run: `workers` if > 0, else all `platformHosts`. Throws
// InvalidArgument when workers exceeds the platform or nothing fixes the count.
int resolveRankCount(const ClusterSpec& spec, int workers, int platformHosts);

}  // namespace tetrad::sim
