// Diagnostics: what a rank is doing, for stall reports and collective checks.
//
// Every Transport owns one Diagnostics (shared with the PrefixTransport views
// built on it). It holds three things the engines and the collectives read:
//
//   - Activity labels: a scoped "what I am doing" text for a range of tags
//     (ActivityLabel, below), set by the layers above the transport — a
//     collective names itself ("ring all-reduce of 25000 floats (tag 1040)"),
//     the trainer names the bucket and its tensors. Labels are keyed by tag
//     range, not by thread, so a communication task and the worker that use
//     disjoint tag ranges (as TagSpace guarantees) never see each other's
//     label, on either engine. The innermost (last set) label whose range
//     holds a tag describes a wait on that tag.
//   - The stall threshold (--stall-warn): a wait that lasts longer prints one
//     line on stderr naming the rank, the peer, the tag, the operation and
//     the labels (reportStall), then keeps waiting up to the timeout, as
//     Horovod's stall inspector does. Default: a tenth of the timeout; 0
//     turns reports off.
//   - Collective checks (--check-collectives): when on, every public
//     collective and aggregation first agrees on a fingerprint of the call
//     (collectives/call_check.h); sequence numbers per tag live here.
//
// Thread-safety: every method may be called from any of the rank's threads
// or actors. The mutex is held only for map updates, never across a wait or
// a simcall, so it never blocks a SimGrid actor.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad {

class Diagnostics {
 public:
  // Stall threshold in seconds of the engine's clock for a transport whose
  // timeout is `timeout`: the value set, or timeout / 10 when none was set.
  double stallWarnSeconds(double timeout) const;
  // < 0: back to the default; 0: no stall reports.
  void setStallWarnSeconds(double seconds);

  // Labels (use ActivityLabel). push returns an id for pop.
  uint64_t pushLabel(Tag first, Tag count, std::string text);
  void popLabel(uint64_t id);
  // The labels whose range holds `tag`, outermost first, joined by " / ";
  // empty when none.
  std::string labelsFor(Tag tag) const;

  bool checkCollectives() const { return checkCollectives_; }
  void setCheckCollectives(bool on) { checkCollectives_ = on; }
  // The sequence number of the next checked call on `tag` (0, 1, ...).
  uint64_t nextSequence(Tag tag);

 private:
  struct Label {
    uint64_t id;
    Tag first, end;
    std::string text;
  };
  mutable std::mutex mutex_;
  double stallWarn_ = -1;
  bool checkCollectives_ = false;
  uint64_t nextLabel_ = 1;
  std::vector<Label> labels_;
  std::map<Tag, uint64_t> sequences_;
};

// Sets a label on [first, first + count) of `transport`'s tags for its
// lifetime (see above).
class ActivityLabel {
 public:
  ActivityLabel(Transport& transport, Tag first, Tag count, std::string text);
  ~ActivityLabel();
  ActivityLabel(const ActivityLabel&) = delete;
  ActivityLabel& operator=(const ActivityLabel&) = delete;

 private:
  Diagnostics& diagnostics_;
  uint64_t id_;
};

// Prints the stall line on stderr:
//   tetrad: rank R: stalled S s in OPERATION rank P (tag T[, N bytes]) [during
//   LABELS]; still waiting, timeout after TIMEOUT s
// `peer` < 0 means any rank. Called by the engines' wait loops.
void reportStall(const Transport& transport, std::string_view operation, int peer, Tag tag,
                 int64_t bytes, double waited);

}  // namespace tetrad
