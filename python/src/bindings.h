// The parts of the Python module tetrad._tetrad (module.cc): each bind*()
// adds one concept's classes and functions to the module. Called once, at
// import, with the GIL held.
#pragma once

#include <pybind11/pybind11.h>

namespace tetrad::python {

void bindCompressor(pybind11::module_& m);  // bind_compressor.cc
void bindTransport(pybind11::module_& m);   // bind_transport.cc
void bindTopology(pybind11::module_& m);    // bind_topology.cc
void bindGossip(pybind11::module_& m);      // bind_gossip.cc
void bindPrecision(pybind11::module_& m);   // bind_precision.cc

}  // namespace tetrad::python
