// Scratch: temporary float buffers for the collectives, reused across calls.
//
// Collectives need scratch space to receive a peer's block before adding it,
// and with a 16-bit wire to hold the vector's 2-byte image (wire_image.h).
// Allocating it fresh on every call is slow for large messages (the kernel
// zero-fills every new page on first touch), so buffers come from one
// process-wide pool and go back to it when the Scratch is destroyed. A buffer
// handed out is owned by one call until then. The pool keeps at most
// kScratchPoolBytes of idle buffers; beyond that, released buffers are freed.
//
// In payload-free mode collectives receive into their destination and take no
// scratch at all (see reduce_ops.h), so hundreds of simulated ranks cost no
// scratch memory.
//
// Thread-safety: acquire/release are guarded by a mutex that is never held
// while waiting for anything else, so SimGrid actors and MPI comm threads may
// both use it.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

namespace tetrad::detail {

constexpr size_t kScratchPoolBytes = size_t{512} << 20;

class Scratch {
 public:
  // A buffer of `count` floats (contents unspecified).
  explicit Scratch(size_t count);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  std::span<float> span() { return {data_.get(), count_}; }
  float* data() { return data_.get(); }

 private:
  std::unique_ptr<float[]> data_;
  size_t capacity_ = 0;
  size_t count_ = 0;
};

}  // namespace tetrad::detail
