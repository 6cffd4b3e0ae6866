// WireImage and WireInbox (internal to collectives/): the float32 vector of
// an all-reduce as it travels, at the call's WirePrecision
// (collective_options.h).
//
// A WireImage mirrors the vector `data` element by element at the wire
// precision: element i at bytes [i·b, (i+1)·b), b = wireElementBytes(wire),
// so a block of elements is a block of bytes and the byte-level all-gathers
// and broadcasts run on it unchanged. For kFloat32 the image *is* data's
// bytes: encode() and decode() do nothing and no byte is copied, so the
// float32 algorithms are exactly what they were. For 16-bit wires the image
// is pooled scratch (scratch.h) of 2n bytes: encode() rounds data into it
// (core/float16.h), decode() widens it back, round() does both so that data
// holds exactly what its peers will receive. A WireInbox receives blocks at
// the wire precision into its own scratch and adds them to data in float32.
//
// Payload-free transports (reduce_ops.h): nothing is converted or added, no
// scratch is taken; the image is a prefix of data's bytes and the inbox
// receives into the image, which the transport never reads or writes.
//
// Owned by one collective call; not thread-safe.
#pragma once

#include <span>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/collectives/partition.h"
#include "tetrad/collectives/scratch.h"
#include "tetrad/core/bytes.h"
#include "tetrad/transport/transport.h"

namespace tetrad::detail {

class WireImage {
 public:
  WireImage(const Transport& transport, WirePrecision wire, std::span<float> data);
  WireImage(const WireImage&) = delete;
  WireImage& operator=(const WireImage&) = delete;

  WirePrecision wire() const { return wire_; }
  // False on payload-free transports: no arithmetic on data.
  bool compute() const { return compute_; }
  std::span<float> data() const { return data_; }
  size_t size() const { return data_.size(); }
  size_t elementBytes() const { return elementBytes_; }
  BlockRange all() const { return BlockRange{0, data_.size()}; }

  // The image's bytes: all of them, or those of the elements `r`.
  MutableBytes bytes() const { return bytes_; }
  MutableBytes bytes(BlockRange r) const;
  // The byte range of the elements `r` inside bytes().
  BlockRange byteRange(BlockRange r) const;

  void encode(BlockRange r);  // image[r] = wire(data[r])
  void decode(BlockRange r);  // data[r] = image[r]
  void round(BlockRange r);   // encode(r), then decode(r)

 private:
  WirePrecision wire_;
  bool compute_;
  size_t elementBytes_;
  std::span<float> data_;
  Scratch scratch_;
  MutableBytes bytes_;
};

class WireInbox {
 public:
  // Room for up to `capacity` elements of `image`'s vector at its wire
  // precision. `image` must outlive the inbox.
  WireInbox(WireImage& image, size_t capacity);
  WireInbox(const WireInbox&) = delete;
  WireInbox& operator=(const WireInbox&) = delete;

  // Where to receive the elements `r` (r.count <= capacity).
  MutableBytes buffer(BlockRange r);
  // data[r] += the elements just received into buffer(r), in float32.
  void addTo(BlockRange r);
  // data[r] += the elements in `received` (r.count of them at the wire
  // precision, e.g. a peer's bytes handed over by Transport::irecvConsume),
  // in float32; then data[r] /= divisor unless it is 1 (fused with the
  // addition for float32 wires: the same bits as adding, then dividing).
  void addFrom(BlockRange r, ConstBytes received, float divisor = 1);

 private:
  WireImage& image_;
  size_t capacity_;
  Scratch scratch_;
};

}  // namespace tetrad::detail
