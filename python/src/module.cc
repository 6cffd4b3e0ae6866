// tetrad._tetrad: the compression layer of tetrad as a Python extension.
//
// What it offers (docs/python.md): Compressor and CompressorState
// (bind_compressor.cc), a Transport over torch.distributed and tetrad's own
// aggregate() (bind_transport.cc), gossip topologies (bind_topology.cc)
// and the D-PSGD and CHOCO gossip steps over that Transport (bind_gossip.cc). tetrad's errors
// become Python exceptions derived from tetrad.Error: InvalidArgument is also a ValueError,
// Unsupported a NotImplementedError; TimeoutError, ProtocolError and
// TransportError are RuntimeErrors.
#include <pybind11/pybind11.h>

#include "bindings.h"
#include "tetrad/core/error.h"

namespace py = pybind11;

namespace {

// Python exception classes, made at import, kept for the translator.
struct Exceptions {
  py::object base, invalidArgument, unsupported, timeout, protocol, transport;
};

py::object makeException(py::module_& m, const char* name, py::tuple bases) {
  py::object type = py::reinterpret_steal<py::object>(
      PyErr_NewException((std::string("tetrad.") + name).c_str(), bases.ptr(), nullptr));
  if (!type) throw py::error_already_set();
  m.attr(name) = type;
  return type;
}

}  // namespace

PYBIND11_MODULE(_tetrad, m) {
  m.doc() = "tetrad's compressors, error feedback and aggregation protocols (C++).";
  static Exceptions* errors = new Exceptions();  // lives as long as the interpreter
  errors->base = makeException(m, "Error", py::make_tuple(py::handle(PyExc_RuntimeError)));
  errors->invalidArgument = makeException(
      m, "InvalidArgument", py::make_tuple(errors->base, py::handle(PyExc_ValueError)));
  errors->unsupported = makeException(
      m, "Unsupported", py::make_tuple(errors->base, py::handle(PyExc_NotImplementedError)));
  errors->timeout = makeException(m, "TimeoutError", py::make_tuple(errors->base));
  errors->protocol = makeException(m, "ProtocolError", py::make_tuple(errors->base));
  errors->transport = makeException(m, "TransportError", py::make_tuple(errors->base));
  py::register_exception_translator([](std::exception_ptr pointer) {
    try {
      if (pointer) std::rethrow_exception(pointer);
    } catch (const tetrad::InvalidArgument& e) {
      PyErr_SetString(errors->invalidArgument.ptr(), e.what());
    } catch (const tetrad::Unsupported& e) {
      PyErr_SetString(errors->unsupported.ptr(), e.what());
    } catch (const tetrad::TimeoutError& e) {
      PyErr_SetString(errors->timeout.ptr(), e.what());
    } catch (const tetrad::ProtocolError& e) {
      PyErr_SetString(errors->protocol.ptr(), e.what());
    } catch (const tetrad::TransportError& e) {
      PyErr_SetString(errors->transport.ptr(), e.what());
    } catch (const tetrad::Error& e) {
      PyErr_SetString(errors->base.ptr(), e.what());
    }
  });
  tetrad::python::bindCompressor(m);
  tetrad::python::bindTransport(m);
  tetrad::python::bindTopology(m);
  tetrad::python::bindGossip(m);
  tetrad::python::bindPrecision(m);
}
