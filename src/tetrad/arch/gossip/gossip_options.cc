#include "tetrad/arch/gossip/gossip_options.h"

#include "tetrad/core/error.h"

namespace tetrad {

void checkGossipTag(Tag tag, const char* exchange) {
  TETRAD_CHECK(tag < kMaxUserTag && kMaxUserTag - tag >= kGossipTagSpan, InvalidArgument,
               "{}: tags [{}, {}) reach the reserved range (user tags are below {})", exchange, tag,
               static_cast<uint64_t>(tag) + kGossipTagSpan, kMaxUserTag);
}

}  // namespace tetrad
