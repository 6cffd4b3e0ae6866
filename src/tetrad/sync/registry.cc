// The sync-policy registry (see registry.h): one table line per policy.
#include "tetrad/sync/registry.h"

#include "tetrad/core/error.h"
#include "tetrad/sync/accumulate.h"
#include "tetrad/sync/bsp.h"
#include "tetrad/sync/local_sgd.h"
#include "tetrad/sync/stale_sync.h"

namespace tetrad {
namespace {

using Entry = RegistryEntry<SyncPolicyFactory>;

std::vector<Entry>& table() {
  static std::vector<Entry> entries = {
      {{"bsp", "bsp", "bulk synchronous: average the gradients every step"}, makeBsp},
      {{"ssp", "ssp:2", "stale-synchronous, staleness bound S (parameter server)"}, makeSsp},
      {{"asp", "asp", "asynchronous: push and pull without waiting (parameter server)"}, makeAsp},
      {{"local", "local:4", "Local SGD: H local steps, then average the model change"},
       makeLocalSgd},
      {{"post-local", "post-local:2ep:4", "BSP for T iterations (Tep: epochs), then local:H"},
       makePostLocalSgd},
      {{"accum", "accum:4", "gradient accumulation: K micro-batches, then one BSP step on their mean"},
       makeAccumulate},
  };
  return entries;
}

}  // namespace

SyncPolicyPtr makeSyncPolicy(std::string_view spec, const SyncContext& context) {
  SpecParams params = parseSpec(spec, "--sync");
  return lookupEntry(table(), params).make(params, context);
}

std::vector<PolicyInfo> registeredSyncPolicies() {
  return policyInfos(table());
}

std::string knownSyncPolicies() {
  return knownSpecs(table());
}

bool registerSyncPolicy(PolicyInfo info, SyncPolicyFactory factory) {
  for (const Entry& entry : table()) {
    TETRAD_CHECK(entry.info.name != info.name, InvalidArgument,
                 "registerSyncPolicy: a sync policy named '{}' is already registered", info.name);
  }
  TETRAD_CHECK(factory != nullptr, InvalidArgument,
               "registerSyncPolicy: sync policy '{}' has no factory", info.name);
  table().push_back({std::move(info), std::move(factory)});
  return true;
}

}  // namespace tetrad
