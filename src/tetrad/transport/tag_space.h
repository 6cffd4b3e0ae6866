// TagSpace: hands out message-tag ranges for one launch, in call order (as
// Gloo's nextSlot() does).
//
// Components that talk concurrently (the exchange's buckets, parameter-server
// shards, evaluation, run statistics) each reserve their own range once, when
// they are built; no tag is picked by hand across files. Every rank must
// reserve the same ranges in the same order (build the components in the same
// order on every rank, servers included) so that a tag means the same thing
// everywhere.
//
// Thread-safety: one owner (the rank's worker), used while building.
#pragma once

#include <string>
#include <string_view>

#include "tetrad/transport/transport.h"

namespace tetrad {

class TagSpace {
 public:
  explicit TagSpace(Tag first = 1000) : next_(first) {}

  // The first of `count` consecutive fresh tags; `owner` names the reserver
  // in the error thrown when the user tags run out.
  Tag reserve(Tag count, std::string_view owner);

  // The next tag that reserve() would return.
  Tag next() const { return next_; }

 private:
  Tag next_;
};

}  // namespace tetrad
