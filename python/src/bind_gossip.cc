// Python bindings of tetrad's gossip steps over a PyTransport (torch.distributed
// point-to-point): D-PSGD's neighbour averaging (arch/gossip/neighbour_mixer.h)
// and CHOCO-SGD's compressed gossip (arch/gossip/choco_gossip.h). They are the
// steps `tetrad train --arch gossip:TOPO` runs, so tetrad.torch.GossipOptimizer
// mixes exactly as the C++ trainer does.
//
// Threads: the steps release the GIL (the transport reacquires it for each
// message); one step at a time per GossipMixer / ChocoState and transport.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "array_view.h"
#include "bindings.h"
#include "py_transport.h"
#include "tetrad/arch/gossip/choco_gossip.h"
#include "tetrad/arch/gossip/neighbour_mixer.h"
#include "tetrad/core/error.h"

namespace py = pybind11;

namespace tetrad::python {

void bindGossip(py::module_& m) {
  py::class_<NeighbourMixer>(m, "GossipMixer", R"(D-PSGD's averaging step: x_i <- Σ_j w_ij x_j
over the closed neighbourhood at `step`. Keeps its receive buffers across calls.)")
      .def(py::init<>())
      .def(
          "mix",
          [](NeighbourMixer& mixer, PyTransport& transport, const Topology& topology, int64_t step,
             py::array& x, uint32_t tag) {
            std::span<float> values = mutableFloats(x, "GossipMixer.mix: x");
            GossipOptions options;
            options.tag = tag;
            checkGossipTag(options.tag, "GossipMixer.mix");
            py::gil_scoped_release nogil;
            mixer.mix(transport, topology, step, values, options);
          },
          py::arg("transport"), py::arg("topology"), py::arg("step"), py::arg("x"),
          py::arg("tag") = 400, "One averaging step in place on the float32 array x.");

  py::class_<ChocoState>(m, "ChocoState", R"(What a rank of CHOCO-SGD remembers between steps:
the public copies x̂ of itself and of its neighbours, its compressor state, the step count.)")
      .def(py::init([](const Topology& topology, int rank, size_t count, uint64_t seed) {
             TETRAD_CHECK(rank >= 0 && rank < topology.size(), InvalidArgument,
                          "ChocoState: rank {} is outside the topology's {} ranks", rank,
                          topology.size());
             return makeChocoState(topology, rank, count, seed);
           }),
           py::arg("topology"), py::arg("rank"), py::arg("count"), py::arg("seed") = 0)
      .def_readonly("rank", &ChocoState::rank)
      .def_readonly("ranks", &ChocoState::ranks)
      .def_readonly("steps", &ChocoState::steps)
      .def_property_readonly("count", &ChocoState::count)
      .def(
          "public_copy",
          [](const ChocoState& state, int peer) {
            std::span<const float> copy = state.publicCopy(peer);
            return py::array_t<float>(static_cast<py::ssize_t>(copy.size()), copy.data());
          },
          py::arg("peer"), "A copy of x̂ of `peer` (this rank or a neighbour).")
      .def("serialize",
           [](const ChocoState& state) {
             const ByteBuffer bytes = state.serialize();
             return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
           })
      .def_static("deserialize", [](const py::buffer& data) {
        py::buffer_info info;
        return ChocoState::deserialize(constBytes(data, info, "ChocoState.deserialize"));
      });

  m.def(
      "choco_step",
      [](PyTransport& transport, const Topology& topology, py::array& x,
         const Compressor& compressor, ChocoState& state, double gamma, uint32_t tag) {
        std::span<float> values = mutableFloats(x, "choco_step: x");
        ChocoOptions options;
        options.gamma = gamma;
        options.gossip.tag = tag;
        checkGossipTag(options.gossip.tag, "choco_step");
        py::gil_scoped_release nogil;
        chocoGossipStep(transport, topology, values, compressor, state, options);
      },
      py::arg("transport"), py::arg("topology"), py::arg("x"), py::arg("compressor"),
      py::arg("state"), py::arg("gamma") = 1.0, py::arg("tag") = 400,
      "One CHOCO gossip step in place on x (after the local SGD update).");
}

}  // namespace tetrad::python
