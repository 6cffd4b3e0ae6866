// Parameter counts as users write them (`--params 25M` of `tetrad advise` and
// `tetrad topo`). Thread-safe: a pure function.
#pragma once

#include <cstdint>
#include <string_view>

namespace tetrad {

// "25M", "1.66M", "25k" or "7" (K, M, G are powers of 1000), between 1 and
// 10^12; InvalidArgument naming --params otherwise.
uint64_t parseParameterCount(std::string_view text);

}  // namespace tetrad
