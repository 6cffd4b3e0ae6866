// Replica's checkpoint state (replica.h). Layout, all through ByteWriter:
//   u64 n, n floats                  the flat parameters
//   u32 k, k × momentum             each stage's SGD state (saveMomentum)
//   u32 b, b × (name, u64 bytes, raw) the model's buffers, in module order
//   string                           the compute model's noise stream
// Strings are u32 length + bytes.
#include <cstring>
#include <string>

#include "tetrad/core/error.h"
#include "tetrad/train/compute/replica.h"

namespace tetrad::train {
namespace {

void putString(ByteWriter& out, std::string_view text) {
  out.put<uint32_t>(uint32_t(text.size()));
  out.putBytes(std::as_bytes(std::span(text.data(), text.size())));
}

std::string getString(ByteReader& in, std::string_view what) {
  const auto length = in.get<uint32_t>(what);
  const ConstBytes bytes = in.getBytes(length, what);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The key of a parameter's state in LibTorch's optimizer state map (as its
// own optimizers and serialize.h spell it).
std::string stateKey(const torch::Tensor& parameter) {
  return c10::guts::to_string(parameter.unsafeGetTensorImpl());
}

// One stage's SGD state: per parameter, in the optimizer's order, u8 1 and
// the momentum buffer's raw float32 bytes (u64 count first), or u8 0 before
// the first step. Raw bytes rather than LibTorch's archive: a checkpoint is
// mostly this, and the archive's zip format copies it several times.
void saveMomentum(const torch::optim::SGD& optimizer, ByteWriter& out) {
  const auto& state = optimizer.state();
  size_t found = 0;
  for (const auto& group : optimizer.param_groups()) {
    for (const torch::Tensor& parameter : group.params()) {
      const auto it = state.find(stateKey(parameter));
      const torch::Tensor* momentum = nullptr;
      if (it != state.end()) {
        ++found;
        const auto& sgd = static_cast<const torch::optim::SGDParamState&>(*it->second);
        if (sgd.momentum_buffer().defined()) momentum = &sgd.momentum_buffer();
      }
      out.put<uint8_t>(momentum ? 1 : 0);
      if (!momentum) continue;
      TETRAD_CHECK(momentum->scalar_type() == torch::kFloat && momentum->is_contiguous() &&
                       momentum->numel() == parameter.numel(),
                   Error,
                   "optimizer state: a momentum buffer of {} elements ({}) for a "
                   "parameter of {}",
                   momentum->numel(), std::string(momentum->dtype().name()), parameter.numel());
      out.put<uint64_t>(uint64_t(momentum->numel()));
      out.putBytes(ConstBytes(static_cast<const std::byte*>(momentum->data_ptr()),
                              size_t(momentum->nbytes())));
    }
  }
  TETRAD_CHECK(found == state.size(), Error,
               "optimizer state: {} entries, {} of them found by parameter (another LibTorch "
               "layout?)",
               state.size(), found);
}

void loadMomentum(torch::optim::SGD& optimizer, ByteReader& in, const std::string& origin) {
  auto& state = optimizer.state();
  for (const auto& group : optimizer.param_groups()) {
    for (const torch::Tensor& parameter : group.params()) {
      const std::string key = stateKey(parameter);
      if (in.get<uint8_t>("momentum flag") == 0) {
        state.erase(key);
        continue;
      }
      const auto count = in.get<uint64_t>("momentum size");
      TETRAD_CHECK(count == uint64_t(parameter.numel()), InvalidArgument,
                   "checkpoint {}: a momentum buffer of {} elements for a parameter of {}", origin,
                   count, parameter.numel());
      const ConstBytes raw = in.getBytes(size_t(count) * sizeof(float), "momentum buffer");
      torch::Tensor momentum = torch::empty_like(parameter, torch::MemoryFormat::Contiguous);
      std::memcpy(momentum.data_ptr(), raw.data(), raw.size());
      auto sgd = std::make_unique<torch::optim::SGDParamState>();
      sgd->momentum_buffer(momentum);
      state[key] = std::move(sgd);
    }
  }
}

}  // namespace

ByteBuffer Replica::saveState() {
  const std::span<const float> params = flat_->parameters();
  // Parameters, as many momentum bytes, buffers and headers: one allocation.
  size_t bufferBytes = 0;
  for (const auto& buffer : model_->buffers()) bufferBytes += size_t(buffer.nbytes()) + 256;
  ByteBuffer state;
  state.reserve(2 * params.size_bytes() + bufferBytes + 64 * 1024);  // + headers, noise state
  ByteWriter out(state);
  out.put<uint64_t>(params.size());
  out.putBytes(std::as_bytes(params));
  out.put<uint32_t>(uint32_t(optimizers_.size()));
  for (auto& optimizer : optimizers_) saveMomentum(*optimizer, out);
  const auto buffers = model_->named_buffers();
  out.put<uint32_t>(uint32_t(buffers.size()));
  for (const auto& [name, buffer] : buffers.pairs()) {
    const torch::Tensor dense = buffer.contiguous();
    putString(out, name);
    out.put<uint64_t>(uint64_t(dense.nbytes()));
    out.putBytes(ConstBytes(static_cast<const std::byte*>(dense.data_ptr()), dense.nbytes()));
  }
  putString(out, timer_->saveState());
  return state;
}

void Replica::loadState(ConstBytes state, const std::string& origin) {
  try {
    ByteReader in(state);
    const std::span<float> params = flat_->parameters();
    const auto count = in.get<uint64_t>("parameter count");
    TETRAD_CHECK(count == params.size(), InvalidArgument,
                 "checkpoint {} holds {} parameters; model {} has {}", origin, count,
                 config_.given.model, params.size());
    const ConstBytes saved = in.getBytes(count * sizeof(float), "parameters");
    std::memcpy(params.data(), saved.data(), saved.size());
    const auto optimizers = in.get<uint32_t>("optimizer count");
    TETRAD_CHECK(optimizers == optimizers_.size(), InvalidArgument,
                 "checkpoint {} holds {} optimizer stages; model {} has {}", origin, optimizers,
                 config_.given.model, optimizers_.size());
    for (auto& optimizer : optimizers_) loadMomentum(*optimizer, in, origin);
    const auto buffers = model_->named_buffers();
    const auto bufferCount = in.get<uint32_t>("buffer count");
    TETRAD_CHECK(bufferCount == buffers.size(), InvalidArgument,
                 "checkpoint {} holds {} model buffers; model {} has {}", origin, bufferCount,
                 config_.given.model, buffers.size());
    for (const auto& [name, buffer] : buffers.pairs()) {
      const std::string savedName = getString(in, "buffer name");
      const auto bytes = in.get<uint64_t>("buffer size");
      TETRAD_CHECK(
          savedName == name && bytes == uint64_t(buffer.nbytes()) && buffer.is_contiguous(),
          InvalidArgument,
          "checkpoint {}: buffer {} ({} bytes) where model {} has {} "
          "({} bytes)",
          origin, savedName, bytes, config_.given.model, name, buffer.nbytes());
      const ConstBytes raw = in.getBytes(size_t(bytes), "buffer");
      std::memcpy(buffer.data_ptr(), raw.data(), raw.size());
    }
    timer_->loadState(getString(in, "compute noise state"));
    in.expectEnd("replica state");
  } catch (const ProtocolError& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {} is damaged: {}", origin, e.what());
  }
}

}  // namespace tetrad::train
