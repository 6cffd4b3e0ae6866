// WireImage and WireInbox (wire_image.h).
// Cost with a 16-bit wire: one conversion pass per element encoded, decoded
// or added (vectorised, core/float16.h); none for float32.
#include "tetrad/collectives/wire_image.h"

#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/core/error.h"
#include "tetrad/core/float16.h"

namespace tetrad::detail {
namespace {

// Floats of scratch that hold `count` elements of `elementBytes` each.
size_t scratchFloats(size_t count, size_t elementBytes) {
  return (count * elementBytes + sizeof(float) - 1) / sizeof(float);
}

bool converts(WirePrecision wire, bool compute) {
  return compute && wire != WirePrecision::kFloat32;
}

}  // namespace

WireImage::WireImage(const Transport& transport, WirePrecision wire, std::span<float> data)
    : wire_(wire),
      compute_(computesOnData(transport)),
      elementBytes_(wireElementBytes(wire)),
      data_(data),
      scratch_(converts(wire, compute_) ? scratchFloats(data.size(), elementBytes_) : 0) {
  // float32, or payload-free: the image lies on data's own bytes.
  bytes_ = converts(wire, compute_) ? std::as_writable_bytes(scratch_.span())
                                    : std::as_writable_bytes(data);
  bytes_ = bytes_.first(data.size() * elementBytes_);
}

MutableBytes WireImage::bytes(BlockRange r) const {
  return bytes_.subspan(r.offset * elementBytes_, r.count * elementBytes_);
}

BlockRange WireImage::byteRange(BlockRange r) const {
  return BlockRange{r.offset * elementBytes_, r.count * elementBytes_};
}

void WireImage::encode(BlockRange r) {
  if (!converts(wire_, compute_)) return;
  std::span<const float> values = data_.subspan(r.offset, r.count);
  std::byte* out = bytes(r).data();
  if (wire_ == WirePrecision::kFloat16) {
    floatsToHalf(values, out);
  } else {
    floatsToBf16(values, out);
  }
}

void WireImage::decode(BlockRange r) {
  if (!converts(wire_, compute_)) return;
  std::span<float> values = data_.subspan(r.offset, r.count);
  const std::byte* in = bytes(r).data();
  if (wire_ == WirePrecision::kFloat16) {
    halfToFloats(in, values);
  } else {
    bf16ToFloats(in, values);
  }
}

void WireImage::round(BlockRange r) {
  encode(r);
  decode(r);
}

WireInbox::WireInbox(WireImage& image, size_t capacity)
    : image_(image),
      capacity_(capacity),
      scratch_(image.compute() ? scratchFloats(capacity, image.elementBytes()) : 0) {}

MutableBytes WireInbox::buffer(BlockRange r) {
  TETRAD_CHECK(r.count <= capacity_, InvalidArgument,
               "wire inbox of {} elements asked to receive {}", capacity_, r.count);
  // Payload-free: receive "into" the image, which is never touched.
  if (!image_.compute()) return image_.bytes(r);
  return std::as_writable_bytes(scratch_.span()).first(r.count * image_.elementBytes());
}

void WireInbox::addTo(BlockRange r) {
  if (!image_.compute()) return;
  addFrom(r, std::as_bytes(scratch_.span()).first(r.count * image_.elementBytes()));
}

void WireInbox::addFrom(BlockRange r, ConstBytes received, float divisor) {
  if (!image_.compute()) return;
  TETRAD_CHECK(received.size() == r.count * image_.elementBytes(), InvalidArgument,
               "wire inbox: {} bytes received for {} elements of {} bytes", received.size(),
               r.count, image_.elementBytes());
  std::span<float> target = image_.data().subspan(r.offset, r.count);
  switch (image_.wire()) {
    case WirePrecision::kFloat32: {
      // The sender's float32 elements, aligned as floats (a float vector's
      // bytes, or a scratch or message buffer).
      const std::span<const float> in(reinterpret_cast<const float*>(received.data()), r.count);
      if (divisor != 1) {
        addIntoThenDivide(target, in, divisor);
        return;
      }
      addInto(target, in);
      return;
    }
    case WirePrecision::kFloat16:
      addHalfToFloats(received.data(), target);
      break;
    case WirePrecision::kBFloat16:
      addBf16ToFloats(received.data(), target);
      break;
  }
  if (divisor != 1) divideBy(target, divisor);
}

}  // namespace tetrad::detail
