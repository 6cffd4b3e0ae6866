// FixedByteWriter: writes values into a buffer sized in advance, in
// ByteReader's layout (core/bytes.h). Serializers that know their size use it
// instead of ByteWriter, whose vector::insert on an empty vector draws a false
// GCC 12 warning; writing past the end throws instead of corrupting memory.
//
// Thread-safety: one writer per buffer.
#pragma once

#include <cstring>

#include "tetrad/core/bytes.h"
#include "tetrad/core/error.h"

namespace tetrad {

class FixedByteWriter {
 public:
  explicit FixedByteWriter(MutableBytes out) : out_(out) {}

  void putBytes(const void* data, size_t bytes) {
    TETRAD_CHECK(bytes <= out_.size() - offset_, Error,
                 "serializer wrote {} bytes past offset {} of a {}-byte buffer", bytes, offset_,
                 out_.size());
    if (bytes > 0) std::memcpy(out_.data() + offset_, data, bytes);
    offset_ += bytes;
  }
  template <typename T>
  requires std::is_trivially_copyable_v<T>
  void put(T value) { putBytes(&value, sizeof value); }
  size_t offset() const { return offset_; }

 private:
  MutableBytes out_;
  size_t offset_ = 0;
};

}  // namespace tetrad
