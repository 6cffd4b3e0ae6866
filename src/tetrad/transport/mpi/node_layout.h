// Node layout of an MPI world (internal to transport/mpi): how many
// consecutive ranks share a node, as Transport::ranksPerNode() reports it.
//
// Pure functions over the host name of every rank (gathered by
// MpiTransport), so the rule is testable without a multi-node cluster.
// Thread-safe.
#pragma once

#include <string>
#include <vector>

namespace tetrad::mpi {

// K when every host holds exactly K ranks and they are consecutive (ranks r
// and r' share a host iff r / K == r' / K); 1 otherwise (uneven or
// interleaved placement, e.g. mpirun --map-by node).
int ranksPerNodeFromHosts(const std::vector<std::string>& hosts);

// The value of TETRAD_MPI_RANKS_PER_NODE: a positive divisor of
// `worldSize`, else InvalidArgument naming the variable.
int parseRanksPerNode(const std::string& text, int worldSize);

}  // namespace tetrad::mpi
