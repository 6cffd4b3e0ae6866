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
// A policy defined outside this folder (a plug-in, a test's own policy) joins
// the table with registerSyncPolicy(): the worker loop asks a policy only
// what it is (mode(), at(), averagesModels(), stalenessBound()), never its
// name, so a registered policy trains end to end on every engine with no
// change under src/tetrad/train/ (tests/train/sync_plugin_test.cc).
//
// Thread-safety: lookups may run on any thread; registerSyncPolicy() must
// be called before any run starts (at start-up, as static registrations do).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "tetrad/core/registry.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeSyncPolicy(std::string_view spec, const SyncContext& context = {});

// Builds a policy from its parsed spec (params.name is the registered name;
// bad parameters: params.fail(...)).
using SyncPolicyFactory = std::function<SyncPolicyPtr(const SpecParams&, const SyncContext&)>;
// Adds a policy to the table under info.name (which must be new: a name
// already registered throws InvalidArgument). Returns true, so that a
// registration can initialise a namespace-scope constant.
bool registerSyncPolicy(PolicyInfo info, SyncPolicyFactory factory);

// Every registered policy, in a stable order; and their examples as one line.
std::vector<PolicyInfo> registeredSyncPolicies();
std::string knownSyncPolicies();

}  // namespace tetrad
