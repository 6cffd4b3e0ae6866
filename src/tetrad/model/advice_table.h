// The advisor's table: `tetrad advise`'s default output (its derivations
// are formatTargetRanking's lines, under --explain). One row per method:
//
//   rank  method                    to target  per iteration  × iterations  caveat
//      1  bsp allreduce:auto none       1.00×      160.20 ms          1.00  -
//      9  bsp allreduce:auto efsign     1.45×      160.44 ms          1.45  biased compression
//     ...
//
// "to target" is the predicted time to reach the same accuracy relative to
// BSP's (uncompressed BSP on its fastest all-reduce when ranked, else the
// fastest row): time per iteration × iteration multiplier (advisor.h). A
// method without an iteration theory follows the others by time per
// iteration, its "to target" and "× iterations" left "-" and "?". Of the
// all-reduce algorithms (auto, ring, rabenseifner, tree, hierarchical) only
// the fastest of each sync × compressor is a row; the caveat is a row's
// first accuracy flag. Methods are recognised by their traits
// (method_traits.h).
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/model/advisor.h"

namespace tetrad::model {

struct AdviceTable {
  std::vector<std::string> lines;  // the header line, then one per row
  std::string reference;           // the method "to target" is relative to
  int hidden = 0;                  // algorithm rows left out for allreduce:auto's
};

AdviceTable formatAdviceTable(const TargetRanking& ranking);

}  // namespace tetrad::model
