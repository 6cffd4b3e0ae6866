// Replica's checkpoint state (replica.h). Layout, all through ByteWriter:
//   u64 n, n floats                  the flat parameters
//   u32 k, k × (u64 bytes, archive)  each stage's SGD state, as LibTorch's
//                                    own optimizer serialization writes it
//   u32 b, b × (name, u64 bytes, raw) the model's buffers, in module order
//   string                           the compute model's noise stream
// Strings are u32 length + bytes.
#include <cstring>
#include <sstream>

#include "tetrad/core/error.h"
#include "tetrad/train/replica.h"

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

}  // namespace

ByteBuffer Replica::saveState() {
  const std::span<const float> params = flat_->parameters();
  ByteBuffer state;
  state.reserve(sizeof(uint64_t) + params.size_bytes());
  ByteWriter out(state);
  out.put<uint64_t>(params.size());
  out.putBytes(std::as_bytes(params));
  out.put<uint32_t>(uint32_t(optimizers_.size()));
  for (auto& optimizer : optimizers_) {
    torch::serialize::OutputArchive archive;
    optimizer->save(archive);
    std::ostringstream bytes;
    archive.save_to(bytes);
    putString(out, bytes.str());
  }
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
    for (auto& optimizer : optimizers_) {
      std::istringstream bytes(getString(in, "optimizer state"));
      torch::serialize::InputArchive archive;
      archive.load_from(bytes);
      optimizer->load(archive);
    }
    const auto buffers = model_->named_buffers();
    const auto bufferCount = in.get<uint32_t>("buffer count");
    TETRAD_CHECK(bufferCount == buffers.size(), InvalidArgument,
                 "checkpoint {} holds {} model buffers; model {} has {}", origin, bufferCount,
                 config_.given.model, buffers.size());
    for (const auto& [name, buffer] : buffers.pairs()) {
      const std::string savedName = getString(in, "buffer name");
      const auto bytes = in.get<uint64_t>("buffer size");
      TETRAD_CHECK(savedName == name && bytes == uint64_t(buffer.nbytes()) &&
                       buffer.is_contiguous(),
                   InvalidArgument, "checkpoint {}: buffer {} ({} bytes) where model {} has {} "
                   "({} bytes)", origin, savedName, bytes, config_.given.model, name,
                   buffer.nbytes());
      const ConstBytes raw = in.getBytes(size_t(bytes), "buffer");
      std::memcpy(buffer.data_ptr(), raw.data(), raw.size());
    }
    timer_->loadState(getString(in, "compute noise state"));
    in.expectEnd("replica state");
  } catch (const ProtocolError& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {} is damaged: {}", origin, e.what());
  } catch (const c10::Error& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {}: unreadable optimizer state: {}", origin,
                e.what_without_backtrace());
  }
}

}  // namespace tetrad::train
