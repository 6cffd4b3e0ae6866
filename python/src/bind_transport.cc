// Python bindings of PyTransport (py_transport.h) and of tetrad's own
// aggregate() (compress/aggregate.h) over it: the hook's path for custom
// protocols, and the reference its tests compare every path with.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "array_view.h"
#include "bindings.h"
#include "py_transport.h"
#include "tetrad/compress/aggregate.h"

namespace py = pybind11;

namespace tetrad::python {

void bindTransport(py::module_& m) {
  py::class_<PyTransport>(m, "Transport", R"(A tetrad Transport over a Python endpoint
(tetrad._dist_endpoint.DistEndpoint: torch.distributed isend/irecv).)")
      .def(py::init<py::object, int, int, double>(), py::arg("endpoint"), py::arg("rank"),
           py::arg("size"), py::arg("timeout") = 300.0)
      .def_property_readonly("rank", &PyTransport::rank)
      .def_property_readonly("size", &PyTransport::size)
      .def_property_readonly("bytes_sent",
                             [](const PyTransport& t) { return t.traffic().totalBytesSent(); })
      .def_property_readonly("bytes_received",
                             [](const PyTransport& t) { return t.traffic().totalBytesReceived(); })
      .def_property_readonly("messages_sent",
                             [](const PyTransport& t) { return t.traffic().totalMessagesSent(); });

  m.def(
      "aggregate",
      [](PyTransport& transport, const Compressor& compressor, py::array& gradient,
         CompressorState& state, uint32_t tag, bool average, const std::string& allreduce) {
        std::span<float> values = mutableFloats(gradient, "aggregate: gradient");
        AggregateOptions options;
        options.op = average ? ReduceOp::kAverage : ReduceOp::kSum;
        options.allreduce = parseAllreduceAlgorithm(allreduce);
        options.tag = tag;
        py::gil_scoped_release nogil;
        aggregate(transport, compressor, values, state, options);
      },
      py::arg("transport"), py::arg("compressor"), py::arg("gradient"), py::arg("state"),
      py::arg("tag") = 1000, py::arg("average") = true, py::arg("allreduce") = "ring",
      R"(tetrad's aggregate(): encode, exchange with the compressor's protocol over
`transport`, decode; the average (or sum) is left in `gradient` in place.)");
}

}  // namespace tetrad::python
