#include "tetrad/transport/diagnostics.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>

namespace tetrad {

double Diagnostics::stallWarnSeconds(double timeout) const {
  std::lock_guard lock(mutex_);
  return stallWarn_ >= 0 ? stallWarn_ : timeout / 10;
}

void Diagnostics::setStallWarnSeconds(double seconds) {
  std::lock_guard lock(mutex_);
  stallWarn_ = seconds;
}

uint64_t Diagnostics::pushLabel(Tag first, Tag count, std::string text) {
  std::lock_guard lock(mutex_);
  const uint64_t id = nextLabel_++;
  const Tag end = count > kMaxUserTag - first ? kMaxUserTag : first + count;
  labels_.push_back({id, first, end, std::move(text)});
  return id;
}

void Diagnostics::popLabel(uint64_t id) {
  std::lock_guard lock(mutex_);
  auto it = std::find_if(labels_.begin(), labels_.end(),
                         [id](const Label& label) { return label.id == id; });
  if (it != labels_.end()) labels_.erase(it);
}

std::string Diagnostics::labelsFor(Tag tag) const {
  std::lock_guard lock(mutex_);
  std::string text;
  for (const Label& label : labels_) {
    if (tag < label.first || tag >= label.end) continue;
    if (!text.empty()) text += " / ";
    text += label.text;
  }
  return text;
}

uint64_t Diagnostics::nextSequence(Tag tag) {
  std::lock_guard lock(mutex_);
  return sequences_[tag]++;
}

ActivityLabel::ActivityLabel(Transport& transport, Tag first, Tag count, std::string text)
    : diagnostics_(transport.diagnostics()),
      id_(diagnostics_.pushLabel(first, count, std::move(text))) {}

ActivityLabel::~ActivityLabel() {
  diagnostics_.popLabel(id_);
}

void reportStall(const Transport& transport, std::string_view operation, int peer, Tag tag,
                 int64_t bytes, double waited) {
  const std::string from = peer < 0 ? std::string("any rank") : fmt::format("rank {}", peer);
  const std::string size = bytes >= 0 ? fmt::format(", {} bytes", bytes) : std::string();
  const std::string labels = transport.diagnostics().labelsFor(tag);
  const std::string during = labels.empty() ? std::string() : " during " + labels;
  const std::string line = fmt::format(
      "tetrad: rank {}: stalled {:.3g} s in {} {} (tag {}{}){}; still waiting, timeout after {} "
      "s\n",
      transport.rank(), waited, operation, from, tag, size, during, transport.timeout());
  std::fputs(line.c_str(), stderr);
  std::fflush(stderr);
}

}  // namespace tetrad
