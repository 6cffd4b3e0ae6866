// allreduce:ALGO — every worker averages each bucket with every other worker
// through one all-reduce-based aggregation (compress/aggregate.h: summable
// compressors all-reduce their domain, gather compressors all-gather their
// packets, custom ones run their own protocol), with the chosen all-reduce
// algorithm (collectives/allreduce.h). No servers; collective streams only.
#pragma once

#include <string_view>

#include "tetrad/arch/exchange.h"
#include "tetrad/collectives/allreduce.h"

namespace tetrad {

ExchangePtr makeAllreduceExchange(AllreduceAlgorithm algorithm, const ExchangeContext& context);

}  // namespace tetrad
