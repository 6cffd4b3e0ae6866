// Registry tables: one shape for every policy of the taxonomy.
//
// Compressors (compress/registry.cc), sync policies (sync/registry.cc),
// architectures (arch/registry.cc) and schedulers (sched/registry.cc) are each
// a table of entries {name, example, summary, factory}: a new policy is one
// file plus one table line. lookupEntry() finds a spec's NAME in a table and
// otherwise throws InvalidArgument "invalid --sync 'foo': unknown name 'foo'
// (known: bsp, ssp:S, ...)"; the "known" list and the --help text come from
// the same table (knownSpecs()), never from a copy.
//
// Thread-safe: tables are immutable after static initialisation.
#pragma once

#include <string>
#include <vector>

#include "tetrad/core/spec.h"

namespace tetrad {

struct PolicyInfo {
  std::string name;     // "topk"
  std::string example;  // "topk:0.01"
  std::string summary;  // one line for --help and tables
};

template <typename Factory>
struct RegistryEntry {
  PolicyInfo info;
  Factory make;
};

// "ex1, ex2, ..." from the examples of `table`.
template <typename Entry>
std::string knownSpecs(const std::vector<Entry>& table) {
  std::string text;
  for (const Entry& entry : table) text += (text.empty() ? "" : ", ") + entry.info.example;
  return text;
}

// The entry named params.name; throws InvalidArgument listing the known specs.
template <typename Entry>
const Entry& lookupEntry(const std::vector<Entry>& table, const SpecParams& params) {
  for (const Entry& entry : table) {
    if (entry.info.name == params.name) return entry;
  }
  params.fail("unknown name '" + params.name + "' (known: " + knownSpecs(table) + ")");
}

// "NAME  summary" lines, for --help.
template <typename Entry>
std::vector<PolicyInfo> policyInfos(const std::vector<Entry>& table) {
  std::vector<PolicyInfo> infos;
  for (const Entry& entry : table) infos.push_back(entry.info);
  return infos;
}

}  // namespace tetrad
