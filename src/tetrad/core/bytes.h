// Byte buffers and bounds-checked readers/writers.
//
// `ByteBuffer` owns bytes; `ConstBytes`/`MutableBytes` are views. `ByteWriter`
// appends little-endian scalars and raw spans to a ByteBuffer. `ByteReader`
// reads them back and throws ProtocolError, naming what it was reading,
// instead of ever reading past the end: it is the only way code should parse
// bytes that came from a peer or a file.
//
// Thread-safety: none; one owner at a time.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include "tetrad/core/error.h"

namespace tetrad {

using ByteBuffer = std::vector<std::byte>;
using ConstBytes = std::span<const std::byte>;
using MutableBytes = std::span<std::byte>;

template <typename T>
ConstBytes asBytes(std::span<const T> values) {
  return std::as_bytes(values);
}
template <typename T>
MutableBytes asWritableBytes(std::span<T> values) {
  return std::as_writable_bytes(values);
}

class ByteWriter {
 public:
  explicit ByteWriter(ByteBuffer& out) : out_(out) {}

  template <typename T>
  requires std::is_trivially_copyable_v<T>
  void put(T value) {
    const auto* p = reinterpret_cast<const std::byte*>(&value);
    out_.insert(out_.end(), p, p + sizeof(T));
  }
  void putBytes(ConstBytes bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }
  // Reserves `count` zeroed bytes and returns a view of them (valid until the
  // next write).
  MutableBytes grow(size_t count) {
    size_t old = out_.size();
    out_.resize(old + count);
    return MutableBytes(out_.data() + old, count);
  }
  size_t size() const { return out_.size(); }

 private:
  ByteBuffer& out_;
};

class ByteReader {
 public:
  explicit ByteReader(ConstBytes in) : in_(in) {}

  template <typename T>
  requires std::is_trivially_copyable_v<T> T get(std::string_view what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, in_.data() + offset_, sizeof(T));
    offset_ += sizeof(T);
    return value;
  }
  ConstBytes getBytes(size_t count, std::string_view what) {
    need(count, what);
    ConstBytes view = in_.subspan(offset_, count);
    offset_ += count;
    return view;
  }
  size_t remaining() const { return in_.size() - offset_; }
  size_t offset() const { return offset_; }
  // Throws unless every byte has been consumed.
  void expectEnd(std::string_view what) const {
    TETRAD_CHECK(remaining() == 0, ProtocolError, "{}: {} trailing bytes after {} bytes", what,
                 remaining(), offset_);
  }

 private:
  void need(size_t count, std::string_view what) const {
    TETRAD_CHECK(count <= remaining(), ProtocolError,
                 "truncated data reading {}: need {} bytes at offset {}, {} left", what, count,
                 offset_, remaining());
  }
  ConstBytes in_;
  size_t offset_ = 0;
};

// A histogram (value -> count: staleness histograms) as u64 entries, then
// (i64 value, i64 count) pairs. getCounts() refuses more entries than the
// bytes left can hold before it allocates anything.
inline void putCounts(ByteWriter& out, const std::map<int64_t, int64_t>& counts) {
  out.put<uint64_t>(counts.size());
  for (const auto& [value, count] : counts) {
    out.put<int64_t>(value);
    out.put<int64_t>(count);
  }
}
inline std::map<int64_t, int64_t> getCounts(ByteReader& in, std::string_view what) {
  const auto entries = in.get<uint64_t>(what);
  TETRAD_CHECK(entries <= in.remaining() / (2 * sizeof(int64_t)), ProtocolError,
               "{}: {} entries in {} bytes", what, entries, in.remaining());
  std::map<int64_t, int64_t> counts;
  for (uint64_t i = 0; i < entries; ++i) {
    const auto value = in.get<int64_t>(what);
    counts[value] = in.get<int64_t>(what);
  }
  return counts;
}

}  // namespace tetrad
