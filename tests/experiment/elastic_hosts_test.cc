// Hosts of an elastic job: Open MPI hostfiles, discovery output, mpirun's
// --host value and the ranks mpirun reports dead (experiment/elastic_hosts.h).
#include "tetrad/experiment/elastic_hosts.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"

namespace tetrad::experiment {
namespace {

TEST(ElasticHosts, HostfileSlotsCommentsAndRepeats) {
  const auto hosts = parseHostfile(
      "# two nodes\nnode1 slots=4\n\nnode2   # one slot\nnode1 slots=2 max_slots=8\n", "hosts");
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].name, "node1");
  EXPECT_EQ(hosts[0].slots, 6);
  EXPECT_EQ(hosts[1].slots, 1);
  EXPECT_EQ(totalSlots(hosts), 7);
}

TEST(ElasticHosts, BadHostfileLinesAreNamed) {
  try {
    parseHostfile("node1 slots=2\nnode2 slots=0\n", "hf");
    FAIL() << "slots=0 accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("hf line 2: invalid slot count '0'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(parseHostfile("node1 cpus=2\n", "hf"), InvalidArgument);
  EXPECT_THROW(parseHostfile("no/de slots=2\n", "hf"), InvalidArgument);
}

TEST(ElasticHosts, DiscoveryOutputInHorovodsFormat) {
  const auto hosts = parseDiscoveredHosts("a:2\nb\n\nc:3\r\n", "cmd");
  ASSERT_EQ(hosts.size(), 3u);
  EXPECT_EQ(totalSlots(hosts), 6);
  EXPECT_EQ(hostArgument(hosts, 4), "a:2,b:1,c:1");
  EXPECT_EQ(hostArgument(hosts, 2), "a:2");
  EXPECT_THROW(parseDiscoveredHosts("a:x\n", "cmd"), InvalidArgument);
  EXPECT_TRUE(parseDiscoveredHosts("", "cmd").empty());
}

TEST(ElasticHosts, RanksMpirunSawDie) {
  const std::string output =
      "----\nmpirun noticed that process rank 2 with PID 0 on node vm exited on signal 9 "
      "(Killed).\n----\nmpirun noticed that process rank 0 with PID 77 on node n-1 exited on "
      "signal 15 (Terminated).\nprocess rank 2 with PID 0 on node vm exited on signal 9\n";
  EXPECT_EQ(ranksLostBySignal(output), (std::vector<int>{2, 0}));
  EXPECT_TRUE(ranksLostBySignal("Exit code: 137\n").empty());
}

// A host cut off: the survivors report timeouts, the lost rank says
// nothing (its output cannot reach mpirun); a cascade (rank 1 waits on
// rank 0, which waits on rank 2) does not make rank 0 lost.
TEST(ElasticHosts, TheSilentRankIsTheLostOne) {
  const std::string output =
      "tetrad: rank 0: stalled 2 s in recv from rank 2 (tag 9, 4 bytes); still waiting, timeout "
      "after 5 s\n"
      "tetrad: error: rank 0: recv from rank 2 (tag 9, 4 bytes) timed out after 5 s\n"
      "tetrad: error: rank 1: recv from rank 0 (tag 9, 4 bytes) timed out after 5 s\n";
  EXPECT_EQ(ranksSilentAfterTimeouts(output, 3), (std::vector<int>{2}));
  // Every rank reported: the peers named.
  EXPECT_EQ(ranksSilentAfterTimeouts(output, 2), (std::vector<int>{2, 0}));
  EXPECT_TRUE(ranksSilentAfterTimeouts("Exit code: 1\n", 3).empty());
}

}  // namespace
}  // namespace tetrad::experiment
