// MethodTraits: what the advisor's table (advice_table.h) and a map's
// baselines (experiment/map_baselines.h) need to know of a method, read from
// its policies' traits — the sync policy's mode and averaging, the
// architecture's collective, the compressor's identity and its place in the
// iteration theory — never from its name, so a new policy is classified by
// what it declares.
//
// Pure function; thread-safe.
#pragma once

#include "tetrad/model/method_cost.h"

namespace tetrad::model {

struct MethodTraits {
  bool synchronous = false;     // collective sync without model averaging (BSP)
  bool modelAveraging = false;  // averages models every period (Local SGD, post-local)
  bool collective = false;      // the architecture averages by a collective (all-reduce)
  bool mixesModels = false;     // the architecture mixes models with neighbours (gossip)
  bool uncompressed = false;    // the identity compressor
  bool halfPrecision = false;   // exact in the theory but not the identity (fp16, bf16)
  bool errorFeedback = false;   // the theory's error-feedback class
  // Uncompressed BSP on an all-reduce: the reference methods are measured against.
  bool plainBsp() const { return synchronous && collective && uncompressed; }
};

// InvalidArgument for specs the policies do not parse.
MethodTraits methodTraits(const Method& method);

}  // namespace tetrad::model
