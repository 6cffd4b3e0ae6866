// CodecProfile: what a compressor's encode and decode cost on one device, as
// a table per compressor family — the modelled codec charge of simulated and
// timing-only runs (compress/codec_clock.h) and of the advisor.
//
// A profile is a JSON file (configs/codec/*.json; docs/compression.md):
//   { "name": "host-cpu", "device": "...", "source": "...",
//     "compressors": {
//       "topk": {"encode_ns_per_element": 0.9, "decode_ns_per_element": 0.05,
//                "encode_us_per_call": 12, "decode_us_per_call": 1,
//                "source": "tetrad bench compressors --profile, 2026-12-05"},
//       "powersgd": {..., "scale_by_first_parameter": true, ...},
//       "ef": {...},          // error feedback's own work, added to encode
//       ... } }
// One call of `kind` on n elements costs  per_call + n · per_element
// (× the spec's first parameter for entries that scale by it: PowerSGD's
// rank). A spec with ",ef" adds the "ef" entry to its encode. Every entry
// cites its source; a key missing, negative or non-numeric, or an entry
// without a source, is refused with the file and key named.
//
// Shipped profiles are found by name (host-cpu, v100) in the project's
// configs/codec/ (TETRAD_CONFIG_DIR overrides the folder); anything else is
// read as a file path.
//
// Plain values; thread-safe after loading.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tetrad/compress/codec_clock.h"
#include "tetrad/compress/compressor.h"

namespace tetrad::model {

struct CodecRate {
  double encodeSecondsPerElement = 0;
  double decodeSecondsPerElement = 0;
  double encodeSecondsPerCall = 0;
  double decodeSecondsPerCall = 0;
  bool scaleByFirstParameter = false;
  std::string source;
};

struct CodecProfile {
  std::string name;
  std::string device;
  std::string source;
  std::string path;                          // where it was read from
  std::map<std::string, CodecRate> entries;  // by compressor family; "ef"

  // Seconds of one `kind` call of `compressor` on `elements` elements. The
  // identity costs nothing; a family the profile lacks throws
  // InvalidArgument naming the profile and the families it has.
  double seconds(const Compressor& compressor, CodecWork kind, size_t elements) const;
  // Throws as seconds() does when `compressor` is not covered.
  void checkCovers(const Compressor& compressor) const;
  std::vector<std::string> families() const;
};

CodecProfile parseCodecProfile(const std::string& text, const std::string& source);
// "host-cpu", "v100", ... (shipped) or a path.
CodecProfile loadCodecProfile(const std::string& nameOrPath);
// The shipped profiles' folder.
std::string codecProfileFolder();
// The default modelled profile of runs whose compute model gives none.
inline constexpr const char* kDefaultCodecProfile = "host-cpu";

std::string toJson(const CodecProfile& profile);

}  // namespace tetrad::model
