// Sync-policy registry: spec string -> SyncPolicy (sync/sync_policy.h).
//
// One table line per policy in registry.cc (core/registry.h's shape):
//   bsp              bulk synchronous: average gradients every step
//   ssp:S            stale-synchronous, staleness bound S >= 0 (parameter server)
//   asp              asynchronous (parameter server, or gossip)
//   local:H          Local SGD: H local steps, then average the models
//   post-local:T:H   BSP for T iterations (Tep: T epochs), then local:H
// Bad specs throw InvalidArgument naming the spec and the rule.
//
// Thread-safe (immutable tables).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/core/registry.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeSyncPolicy(std::string_view spec, const SyncContext& context = {});

// Every registered policy, in a stable order; and their examples as one line.
std::vector<PolicyInfo> registeredSyncPolicies();
std::string knownSyncPolicies();

}  // namespace tetrad
