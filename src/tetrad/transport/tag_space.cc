#include "tetrad/transport/tag_space.h"

#include "tetrad/core/error.h"

namespace tetrad {

Tag TagSpace::reserve(Tag count, std::string_view owner) {
  TETRAD_CHECK(count > 0 && next_ <= kMaxUserTag - count, InvalidArgument,
               "out of message tags: {} asks for {} tags from {} (limit {})", owner, count, next_,
               kMaxUserTag);
  const Tag first = next_;
  next_ += count;
  return first;
}

}  // namespace tetrad
