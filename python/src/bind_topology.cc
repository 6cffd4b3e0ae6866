// Python bindings of gossip topologies (arch/gossip/topology_spec.h,
// topology.h, spectral.h): the graph and Metropolis–Hastings mixing weights
// that tetrad.torch's GossipOptimizer mixes parameters with, parsed from the
// same specs as `tetrad train --arch gossip:TOPO` and `tetrad topo`, and the
// spectral gap that bounds how fast gossip reaches consensus.
//
// A Topology is an immutable value: any thread may read it.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <utility>
#include <vector>

#include "bindings.h"
#include "tetrad/arch/gossip/spectral.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/core/error.h"

namespace py = pybind11;

namespace tetrad::python {
namespace {

void checkRank(const Topology& topology, int rank, int64_t step) {
  TETRAD_CHECK(rank >= 0 && rank < topology.size(), InvalidArgument,
               "topology '{}': rank {} is outside [0, {})", topology.spec(), rank, topology.size());
  TETRAD_CHECK(step >= 0, InvalidArgument, "topology '{}': step {} is negative", topology.spec(),
               step);
}

}  // namespace

void bindTopology(py::module_& m) {
  py::class_<Topology>(m, "Topology", R"(A gossip topology: who mixes with whom at each step,
with Metropolis–Hastings weights (symmetric, doubly stochastic). Made by parse_topology().)")
      .def_property_readonly("spec", &Topology::spec)
      .def_property_readonly("size", &Topology::size)
      .def_property_readonly("period", &Topology::period)
      .def_property_readonly("time_varying", &Topology::timeVarying)
      .def(
          "neighbours",
          [](const Topology& t, int rank, int64_t step) {
            checkRank(t, rank, step);
            std::span<const int> out = t.neighbours(rank, step);
            return std::vector<int>(out.begin(), out.end());
          },
          py::arg("rank"), py::arg("step") = 0, "Neighbours of `rank` at `step`, ascending.")
      .def(
          "mixing_row",
          [](const Topology& t, int rank, int64_t step) {
            checkRank(t, rank, step);
            std::vector<std::pair<int, double>> row;
            for (const MixingWeight& w : t.mixingRow(rank, step))
              row.emplace_back(w.rank, w.weight);
            return row;
          },
          py::arg("rank"), py::arg("step") = 0,
          "(rank, weight) over the closed neighbourhood of `rank` at `step`; weights sum to 1.")
      .def(
          "spectral_gap", [](const Topology& t) { return spectralGap(t).gap; },
          "1 - contraction(): how much of the consensus distance one step removes at least.")
      .def(
          "contraction", [](const Topology& t) { return spectralGap(t).contraction; },
          "|λ₂| of the mixing matrix (per step over a period for time-varying topologies): "
          "Σ‖x_i − x̄‖ shrinks at least by this factor per step.");

  m.def(
      "parse_topology",
      [](const std::string& spec, int workers, uint64_t seed) {
        TETRAD_CHECK(workers >= 1, InvalidArgument, "invalid topology '{}': {} workers", spec,
                     workers);
        return parseTopology(spec, workers, seed);
      },
      py::arg("spec"), py::arg("workers"), py::arg("seed") = 1,
      "A Topology for `workers` ranks from a spec (known_topologies()); InvalidArgument "
      "(a ValueError) naming the problem otherwise.");
  m.def("known_topologies", &knownTopologies);
}

}  // namespace tetrad::python
