// Hosts of an elastic job (`tetrad elastic`, elastic_supervisor.h): where its
// workers may run, read from an Open MPI hostfile or from the output of a
// host-discovery command, and the events of a job as lines of
// RUN/elastic.jsonl.
//
//   hostfile (Open MPI's format)     discovery output (Horovod's format)
//     # comment                        node1:4
//     node1 slots=4                    node2:2
//     node2 slots=2                    node3          (one slot)
//     node3                (one slot)
//
// A host named twice adds its slots. Bad lines are refused naming the file
// (or command), the line and what is wrong.
//
// Thread-safety: value types and free functions.
#pragma once

#include <string>
#include <vector>

namespace tetrad::experiment {

struct ElasticHost {
  std::string name;
  int slots = 1;
};

// Parses an Open MPI hostfile's text; `origin` names it in errors.
std::vector<ElasticHost> parseHostfile(const std::string& text, const std::string& origin);
// Parses a discovery command's output ("host[:slots]" per line).
std::vector<ElasticHost> parseDiscoveredHosts(const std::string& text, const std::string& origin);

int totalSlots(const std::vector<ElasticHost>& hosts);
// mpirun's --host value for the first `workers` slots: "node1:4,node2:1".
std::string hostArgument(const std::vector<ElasticHost>& hosts, int workers);

// Ranks of a job that mpirun saw die by a signal ("... process rank 2 with
// PID 123 on node x exited on signal 9 (Killed)."), from its output.
std::vector<int> ranksLostBySignal(const std::string& mpirunOutput);
// The ranks of a job of `workers` ranks that did not report a timeout when
// others did ("tetrad: error: rank 0: recv from rank 2 (...) timed out
// after 20 s"): the silent ones, which a stopped rank or a host cut off
// from the network is. When every rank reported, the peers the reports
// name; empty when none reported.
std::vector<int> ranksSilentAfterTimeouts(const std::string& output, int workers);

}  // namespace tetrad::experiment
