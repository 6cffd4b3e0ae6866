// FlopCounter (flop_counter.h): RecordFunction callbacks that add up the
// FLOPs of convolutions and matrix products on one thread.
#include "tetrad/train/compute/flop_counter.h"

#include <ATen/record_function.h>
#include <torch/torch.h>

#include <string_view>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

enum class OpKind { kNone, kConvolution, kTransposed, kLinear, kProduct };

struct ThreadCount {
  bool active = false;
  int depth = 0;  // counted ops open on this thread
  double flops = 0;
  int64_t ops = 0;
};
thread_local ThreadCount tCount;

OpKind kindOf(std::string_view name) {
  if (!name.starts_with("aten::")) return OpKind::kNone;
  name.remove_prefix(6);
  if (name == "conv1d" || name == "conv2d" || name == "conv3d" || name == "convolution" ||
      name == "_convolution")
    return OpKind::kConvolution;
  if (name == "conv_transpose1d" || name == "conv_transpose2d" || name == "conv_transpose3d")
    return OpKind::kTransposed;
  if (name == "linear") return OpKind::kLinear;
  if (name == "addmm" || name == "mm" || name == "bmm" || name == "matmul" || name == "baddbmm")
    return OpKind::kProduct;
  return OpKind::kNone;
}

// A counted op, from its start callback (where ATen lets a callback read
// the inputs) to its end callback (where the output is known): FLOPs are
// 2 · out.numel() · perOutput, or `direct` where the input decides.
struct Counted : at::ObserverContext {
  bool counts = false;  // false for an op nested in a counted one
  double perOutput = 0;
  double direct = 0;
};

const at::Tensor* tensorAt(c10::ArrayRef<const c10::IValue> values, size_t i) {
  if (i >= values.size() || !values[i].isTensor()) return nullptr;
  return &values[i].toTensor();
}

// The op's own arguments. Called from a TorchScript interpreter, ATen hands
// a callback the whole interpreter stack: the arguments are its last
// schema-many values.
c10::ArrayRef<const c10::IValue> argumentsOf(const at::RecordFunction& fn) {
  const c10::ArrayRef<const c10::IValue> stack = fn.inputs();
  const c10::optional<c10::FunctionSchema> schema = fn.operator_schema();
  if (!schema.has_value()) return stack;
  const size_t count = schema->arguments().size();
  return count <= stack.size() ? stack.slice(stack.size() - count) : stack;
}

// Multiply-adds per output element (or the op's whole FLOPs in `direct`).
void measureInputs(OpKind kind, const at::RecordFunction& fn, Counted& c) {
  const auto inputs = argumentsOf(fn);
  const at::Tensor* in = tensorAt(inputs, 0);
  const at::Tensor* weight = tensorAt(inputs, 1);
  switch (kind) {
    case OpKind::kConvolution:
      if (weight == nullptr || weight->dim() < 2 || weight->size(0) == 0) return;
      // aten::convolution/_convolution carry `transposed` as their 7th input.
      if (inputs.size() > 6 && inputs[6].isBool() && inputs[6].toBool()) {
        if (in != nullptr)
          c.direct = 2 * double(in->numel()) * double(weight->numel()) / double(weight->size(0));
        return;
      }
      c.perOutput = double(weight->numel()) / double(weight->size(0));
      return;
    case OpKind::kTransposed:
      if (in == nullptr || weight == nullptr || weight->dim() < 2 || weight->size(0) == 0) return;
      c.direct = 2 * double(in->numel()) * double(weight->numel()) / double(weight->size(0));
      return;
    case OpKind::kLinear:
      if (weight != nullptr && weight->dim() == 2) c.perOutput = double(weight->size(1));
      return;
    case OpKind::kProduct: {
      // addmm(bias, a, b), baddbmm(bias, a, b); mm(a, b), bmm(a, b), matmul(a, b)
      const std::string_view name = fn.name();
      const bool biased = name == "aten::addmm" || name == "aten::baddbmm";
      const at::Tensor* a = tensorAt(inputs, biased ? 1 : 0);
      if (a != nullptr && a->dim() > 0) c.perOutput = double(a->size(-1));
      return;
    }
    case OpKind::kNone:
      return;
  }
}

std::unique_ptr<at::ObserverContext> onStart(const at::RecordFunction& fn) {
  if (!tCount.active) return nullptr;
  const OpKind kind = kindOf(fn.name());
  if (kind == OpKind::kNone) return nullptr;
  auto context = std::make_unique<Counted>();
  context->counts = tCount.depth == 0;
  if (context->counts) measureInputs(kind, fn, *context);
  ++tCount.depth;
  return context;
}

void onEnd(const at::RecordFunction& fn, at::ObserverContext* context) {
  if (context == nullptr) return;
  --tCount.depth;
  const auto* c = static_cast<const Counted*>(context);
  if (!c->counts || !tCount.active) return;
  // The interpreter of a TorchScript module passes its stack: the op's
  // output is the last value.
  const std::vector<c10::IValue>& outputs = fn.outputs();
  double flops = c->direct;
  if (flops == 0 && !outputs.empty() && outputs.back().isTensor())
    flops = 2 * double(outputs.back().toTensor().numel()) * c->perOutput;
  tCount.flops += flops;
  ++tCount.ops;
}

}  // namespace

FlopCounter::FlopCounter() {
  TETRAD_CHECK(!tCount.active, Error, "a FlopCounter is already counting on this thread");
  tCount = ThreadCount{};
  tCount.active = true;
  handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(onStart, onEnd)
                                           .needsInputs(true)
                                           .needsOutputs(true)
                                           .scopes({at::RecordScope::FUNCTION}));
}

FlopCounter::~FlopCounter() {
  at::removeCallback(handle_);
  tCount.active = false;
}

double FlopCounter::flops() const {
  return tCount.flops;
}

int64_t FlopCounter::ops() const {
  return tCount.ops;
}

}  // namespace tetrad::train
