// PiecewiseFactor: a correction factor that depends on the message size, in
// SimGrid's interval syntax for network/latency-factor and
// network/bandwidth-factor ("0:2.1;1024:1.4;65536:1.02"): each "T:F" chunk
// says that messages of more than T bytes, up to the next chunk's T, get the
// factor F. tetrad applies the first chunk to everything up to its T as well
// (SimGrid gives a 0-byte message the factor 1; tetrad gives it the first
// chunk's), so the first threshold is normally 0.
//
// One value serves both engines' models: the simulator installs it as the
// network model's factor callback (transport/sim/sim_config.h: SimGrid 3.32
// accepts only one number for these items; the callback is its documented
// per-size alternative), and the analytic cost models
// (collectives/collective_cost.h) charge α·latencyFactor(m) and
// m·β / bandwidthFactor(m) per message of m bytes. An empty factor is 1 for
// every size.
//
// Thread-safety: plain values; const methods may be called from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tetrad {

struct FactorChunk {
  uint64_t fromBytes = 0;  // the chunk covers sizes > fromBytes (the first: >= 0)
  double factor = 1;
};

class PiecewiseFactor {
 public:
  PiecewiseFactor() = default;
  // Throws InvalidArgument, naming `what`, unless the thresholds strictly
  // increase and every factor is finite and > 0.
  PiecewiseFactor(std::vector<FactorChunk> chunks, std::string_view what);

  // Parses SimGrid's syntax "T:F;T:F;..." (one plain number F: one chunk
  // from 0). Throws InvalidArgument naming `what` and the bad chunk.
  static PiecewiseFactor parse(std::string_view text, std::string_view what);

  bool empty() const { return chunks_.empty(); }
  const std::vector<FactorChunk>& chunks() const { return chunks_; }
  // The factor of a message of `bytes` bytes (1 when empty).
  double at(double bytes) const;
  // "0:2.1;1024:1.4" (shortest exact decimal of each factor); "" when empty.
  std::string toString() const;

 private:
  std::vector<FactorChunk> chunks_;
};

// True when `value` is SimGrid's interval syntax (contains ':' or ';')
// rather than one number.
bool isPiecewiseValue(std::string_view value);

}  // namespace tetrad
