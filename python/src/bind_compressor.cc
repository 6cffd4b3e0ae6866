// Python bindings of the compression layer: Compressor (made from a spec by
// compress/registry.h) and CompressorState (compress/compressor.h).
//
// The long-running calls (encode, decode, the summable domain) release the
// GIL, so a DDP comm hook running on one thread does not stall the others.
// Aggregation names are "summable", "gather", "custom"; wire names are those
// of collectives/collective_options.h ("fp32", "fp16", "bf16").
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>

#include "array_view.h"
#include "bindings.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/compress/compressor.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"

namespace py = pybind11;

namespace tetrad::python {
namespace {

const char* shapeUseName(Compressor::ShapeUse use) {
  switch (use) {
    case Compressor::ShapeUse::kFlat:
      return "flat";
    case Compressor::ShapeUse::kLayout:
      return "layout";
    case Compressor::ShapeUse::kOneTensor:
      return "one_tensor";
  }
  return "?";
}

const char* aggregationName(Aggregation aggregation) {
  switch (aggregation) {
    case Aggregation::kSummable:
      return "summable";
    case Aggregation::kGather:
      return "gather";
    case Aggregation::kCustom:
      return "custom";
  }
  return "?";
}

// The HalfInput of encode_half / encode_summable_half: the 16-bit buffer (its
// request kept in `info` while the input is read), its format and the
// optional float32 scratch. `what` names the call in errors.
HalfInput halfInputOf(const py::buffer& input, const std::string& format,
                      std::optional<py::array>& scratch, py::buffer_info& info, const char* what) {
  const std::string name(what);
  HalfInput in{halfBytes(input, info, false, (name + ": input").c_str()),
               parseHalfFormat(format, what)};
  if (scratch) in.scratch = mutableFloats(*scratch, (name + ": scratch").c_str());
  return in;
}

// Zeroes `out`, adds every rank's packet in rank order and averages (or
// sums): exactly the gather path of aggregate() (compress/aggregate.cc).
void decodeSum(const Compressor& compressor, const py::sequence& packets, py::array& out,
               bool average) {
  std::span<float> output = mutableFloats(out, "decode_sum: out");
  std::vector<py::buffer_info> infos(packets.size());
  std::vector<std::span<const std::byte>> views;
  for (size_t r = 0; r < packets.size(); ++r) {
    views.push_back(constBytes(packets[r].cast<py::buffer>(), infos[r], "decode_sum: packet"));
  }
  TETRAD_CHECK(!views.empty(), InvalidArgument, "decode_sum: no packets");
  py::gil_scoped_release nogil;
  std::fill(output.begin(), output.end(), 0.0f);
  for (size_t r = 0; r < views.size(); ++r) {
    try {
      compressor.decodeAdd(views[r], output);
    } catch (const ProtocolError& error) {
      TETRAD_FAIL(ProtocolError, "decode_sum '{}': packet from rank {}: {}", compressor.spec(), r,
                  error.what());
    }
  }
  finishReduction(output, average ? ReduceOp::kAverage : ReduceOp::kSum,
                  static_cast<int>(views.size()));
}

// CompressorState::layout (fused buckets: the shapes of the tensors that lie
// one after another) where this source tree has it; HAS_LAYOUT says which.
template <typename State>
void bindLayout(py::class_<State>& cls, py::module_& m) {
  if constexpr (requires(State s) { s.layout; }) {
    cls.def_readwrite("layout", &State::layout);
    m.attr("HAS_LAYOUT") = true;
  } else {
    m.attr("HAS_LAYOUT") = false;
  }
}

void bindState(py::module_& m) {
  auto cls = py::class_<CompressorState>(m, "CompressorState", R"(Per-tensor compressor state:
error-feedback residual, momentum, PowerSGD's Q, the step counter of RNG streams.)");
  cls.def(py::init([](uint64_t seed, int rank, std::vector<int64_t> shape) {
            CompressorState state;
            state.seed = seed;
            state.rank = rank;
            state.shape = std::move(shape);
            return state;
          }),
          py::arg("seed") = 0, py::arg("rank") = 0, py::arg("shape") = std::vector<int64_t>{})
      .def_readwrite("seed", &CompressorState::seed)
      .def_readwrite("rank", &CompressorState::rank)
      .def_readwrite("step", &CompressorState::step)
      .def_readwrite("shape", &CompressorState::shape)
      .def_property_readonly(
          "buffers",
          [](const CompressorState& state) {
            py::dict out;
            for (const auto& [name, values] : state.buffers) {
              out[py::str(name)] =
                  py::array_t<float>(static_cast<py::ssize_t>(values.size()), values.data());
            }
            return out;
          },
          "Copies of the named float buffers (residual, momentum, q, ...).")
      .def("serialize",
           [](const CompressorState& state) {
             const ByteBuffer bytes = state.serialize();
             return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
           })
      .def_static("deserialize", [](const py::buffer& data) {
        py::buffer_info info;
        return CompressorState::deserialize(constBytes(data, info, "deserialize"));
      });
  bindLayout(cls, m);
}

}  // namespace

void bindCompressor(py::module_& m) {
  bindState(m);
  py::class_<Compressor>(m, "Compressor", "A tetrad compressor made from a spec string.")
      .def(py::init([](const std::string& spec) { return makeCompressor(spec); }), py::arg("spec"))
      .def_property_readonly("spec", &Compressor::spec)
      .def_property_readonly("aggregation",
                             [](const Compressor& c) { return aggregationName(c.aggregation()); })
      .def_property_readonly("summable_wire",
                             [](const Compressor& c) { return toString(c.summableWire()); })
      .def_property_readonly("is_identity", &Compressor::isIdentity)
      .def_property_readonly("reads_half_input", &Compressor::readsHalfInput,
                             "encode_half reads 16-bit values in the compressor's own first "
                             "pass (error feedback, DGC without clipping); otherwise it widens "
                             "first.")
      .def_property_readonly("is_plain_cast", &Compressor::isPlainCast,
                             "fp16 and bf16: a bucket already in summable_wire's precision "
                             "may be all-reduced as it is.")
      .def_property_readonly(
          "shape_use", [](const Compressor& c) { return shapeUseName(c.shapeUse()); },
          "What a bucket must carry: 'flat' (nothing), 'layout' (the shapes of its tensors) or "
          "'one_tensor' (one tensor per state, with its shape).")
      .def_property_readonly("unbiased", &Compressor::unbiased)
      .def("bits_per_element", &Compressor::bitsPerElement, py::arg("count"))
      .def(
          "encode",
          [](const Compressor& c, const py::array& input, CompressorState& state) {
            std::span<const float> in = constFloats(input, "encode: input");
            Packet packet;
            {
              py::gil_scoped_release nogil;
              packet = c.encode(in, state);
            }
            return py::bytes(reinterpret_cast<const char*>(packet.bytes.data()), packet.size());
          },
          py::arg("input"), py::arg("state"))
      .def(
          "encode_half",
          [](const Compressor& c, const py::buffer& input, const std::string& format,
             CompressorState& state, std::optional<py::array> scratch) {
            py::buffer_info info;
            const HalfInput in = halfInputOf(input, format, scratch, info, "encode_half");
            Packet packet;
            {
              py::gil_scoped_release nogil;
              packet = c.encode(in, state);
            }
            return py::bytes(reinterpret_cast<const char*>(packet.bytes.data()), packet.size());
          },
          py::arg("input"), py::arg("format"), py::arg("state"), py::arg("scratch") = py::none(),
          "encode() of a float16 ('fp16') or bfloat16 ('bf16') buffer viewed as int16: bit for "
          "bit encode() of its float32 values. scratch: a float32 array of as many elements, "
          "where a compressor that does not read 16-bit values itself widens them.")
      .def(
          "encode_summable_half",
          [](const Compressor& c, const py::buffer& input, const std::string& format,
             CompressorState& state, std::optional<py::array> scratch) {
            py::buffer_info info;
            const HalfInput in = halfInputOf(input, format, scratch, info, "encode_summable_half");
            std::vector<float> values;
            {
              py::gil_scoped_release nogil;
              values = c.encodeSummable(in, state);
            }
            return ownedArray(std::move(values));
          },
          py::arg("input"), py::arg("format"), py::arg("state"), py::arg("scratch") = py::none())
      .def(
          "decode_add",
          [](const Compressor& c, const py::buffer& packet, py::array& out) {
            py::buffer_info info;
            std::span<const std::byte> bytes = constBytes(packet, info, "decode_add: packet");
            std::span<float> output = mutableFloats(out, "decode_add: out");
            py::gil_scoped_release nogil;
            c.decodeAdd(bytes, output);
          },
          py::arg("packet"), py::arg("out"))
      .def("decode_sum", &decodeSum, py::arg("packets"), py::arg("out"), py::arg("average") = true,
           "Zeroes out, adds every rank's packet in rank order, averages: aggregate()'s gather "
           "path.")
      .def(
          "encode_summable",
          [](const Compressor& c, const py::array& input, CompressorState& state) {
            std::span<const float> in = constFloats(input, "encode_summable: input");
            std::vector<float> values;
            {
              py::gil_scoped_release nogil;
              values = c.encodeSummable(in, state);
            }
            return ownedArray(std::move(values));
          },
          py::arg("input"), py::arg("state"))
      .def(
          "expand_summed",
          [](const Compressor& c, const py::array& summed, const CompressorState& state,
             py::array& out) {
            std::span<const float> in = constFloats(summed, "expand_summed: summed");
            std::span<float> output = mutableFloats(out, "expand_summed: out");
            py::gil_scoped_release nogil;
            c.expandSummed(in, state, output);
          },
          py::arg("summed"), py::arg("state"), py::arg("out"))
      .def(
          "residual",
          [](const Compressor& c, const CompressorState& state) {
            return ownedArray(c.errorFeedbackResidual(state));
          },
          py::arg("state"), "The error-feedback residual the state carries (empty if none).");

  m.def(
      "finish_reduction",
      [](py::array& data, int worldSize, bool average) {
        std::span<float> values = mutableFloats(data, "finish_reduction: data");
        py::gil_scoped_release nogil;
        finishReduction(values, average ? ReduceOp::kAverage : ReduceOp::kSum, worldSize);
      },
      py::arg("data"), py::arg("world_size"), py::arg("average") = true,
      "Turns a sum over world_size ranks into the collectives' average (or leaves the sum).");
  m.def("known_compressors", [] {
    std::vector<std::string> examples;
    for (const CompressorInfo& info : registeredCompressors()) examples.push_back(info.example);
    return examples;
  });
}

}  // namespace tetrad::python
