// Compressor registry: spec string -> Compressor.
//
// Grammar: NAME[:PARAM[:PARAM...]][,ef]   e.g. "none", "fp16", "topk:0.01",
// "topk:0.01:approx", "qsgd:16", "powersgd:2", "topk:0.01,ef".
// Unknown names and out-of-range parameters throw InvalidArgument with a
// message naming the spec and the rule (e.g. "ratio must be in (0, 1]").
// A new compressor is one file plus one line in registry.cc.
//
// Thread-safe (the registry is immutable after static initialisation).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "tetrad/compress/compressor.h"

namespace tetrad {

CompressorPtr makeCompressor(std::string_view spec);

struct CompressorInfo {
  std::string name;     // "topk"
  std::string example;  // "topk:0.01"
  std::string summary;  // one line for --help and bench tables
};
// Every registered compressor, in a stable order.
const std::vector<CompressorInfo>& registeredCompressors();

}  // namespace tetrad
