// The node-layout rule behind MpiTransport::ranksPerNode(), on made-up host
// lists (a multi-node cluster is not available to the tests).
#include "tetrad/transport/mpi/node_layout.h"

#include <gtest/gtest.h>

#include "tetrad/core/error.h"

namespace tetrad::mpi {
namespace {

TEST(MpiNodeLayout, ConsecutiveEqualBlocks) {
  EXPECT_EQ(ranksPerNodeFromHosts({"a"}), 1);
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "a", "a"}), 4);
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "b", "b", "c", "c"}), 2);
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "b", "c"}), 1);
}

TEST(MpiNodeLayout, UnevenOrInterleavedPlacementIsFlat) {
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "b"}), 1);                 // 3 ranks, 2 + 1
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "b", "b", "b", "b"}), 1);  // 2 + 4
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "b", "a", "b"}), 1);            // --map-by node
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "b", "c"}), 1);
  EXPECT_EQ(ranksPerNodeFromHosts({"a", "a", "b", "b", "a", "a"}), 1);  // host twice
  EXPECT_EQ(ranksPerNodeFromHosts({}), 1);
}

TEST(MpiNodeLayout, OverrideMustDivideTheWorld) {
  EXPECT_EQ(parseRanksPerNode("2", 8), 2);
  EXPECT_EQ(parseRanksPerNode("8", 8), 8);
  EXPECT_THROW(parseRanksPerNode("3", 8), InvalidArgument);
  EXPECT_THROW(parseRanksPerNode("0", 8), InvalidArgument);
  EXPECT_THROW(parseRanksPerNode("16", 8), InvalidArgument);
  EXPECT_THROW(parseRanksPerNode("two", 8), InvalidArgument);
  try {
    parseRanksPerNode("-1", 4);
    ADD_FAILURE() << "no error";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("TETRAD_MPI_RANKS_PER_NODE='-1'"), std::string::npos);
  }
}

}  // namespace
}  // namespace tetrad::mpi
