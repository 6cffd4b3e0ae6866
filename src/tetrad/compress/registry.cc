// The compressor registry (see registry.h): one table line per compressor.
#include "tetrad/compress/registry.h"

#include "tetrad/compress/cast.h"
#include "tetrad/compress/dgc.h"
#include "tetrad/compress/efsign.h"
#include "tetrad/compress/error_feedback.h"
#include "tetrad/compress/gtopk.h"
#include "tetrad/compress/natural.h"
#include "tetrad/compress/none.h"
#include "tetrad/compress/onebit.h"
#include "tetrad/compress/powersgd.h"
#include "tetrad/compress/qsgd.h"
#include "tetrad/compress/randomk.h"
#include "tetrad/compress/sign.h"
#include "tetrad/compress/terngrad.h"
#include "tetrad/compress/threshold.h"
#include "tetrad/compress/topk.h"

namespace tetrad {
namespace {

using Factory = CompressorPtr (*)(const CompressorParams&);

struct Entry : RegistryEntry<Factory> {
  bool builtInErrorFeedback;
};

const std::vector<Entry>& table() {
  static const std::vector<Entry> entries = {
      // name, example, summary; factory; error feedback built in
      {{{"none", "none", "float32, uncompressed (32 bits/elt, summable)"}, makeNone}, false},
      {{{"fp16", "fp16", "IEEE half precision, round to nearest even (16 bits/elt, summable)"},
        makeFp16},
       false},
      {{{"bf16", "bf16", "bfloat16, round to nearest even (16 bits/elt, summable)"}, makeBf16},
       false},
      {{{"onebit", "onebit", "1-bit SGD, mean reconstruction [:col per column], built-in EF"},
        makeOneBit},
       true},
      {{{"sign", "sign", "signSGD with majority vote; sign:momentum=M is Signum (1 bit/elt, custom)"},
        makeSign},
       false},
      {{{"efsign", "efsign", "EF-signSGD: scaled sign with built-in error feedback (1 bit/elt)"},
        makeEfSign},
       true},
      {{{"terngrad", "terngrad", "TernGrad: stochastic ternary, unbiased [:clip=C] (2 bits/elt)"},
        makeTernGrad},
       false},
      {{{"qsgd", "qsgd:16", "QSGD: stochastic S-level quantisation, unbiased [:elias]"}, makeQsgd},
       false},
      {{{"natural", "natural", "natural compression: stochastic powers of two (9 bits/elt)"},
        makeNatural},
       false},
      {{{"topk", "topk:0.01", "Top-k by magnitude, 64 bits/kept elt (gather) [:exact]"}, makeTopK},
       false},
      {{{"randomk", "randomk:0.01", "Random-k with shared indices (summable) [:scaled]"},
        makeRandomK},
       false},
      {{{"threshold", "threshold:0.001", "keep elements with |x| >= T (gather)"}, makeThreshold},
       false},
      {{{"dgc", "dgc:0.001", "DGC: momentum correction, masking, warm-up, clip (gather)"}, makeDgc},
       true},
      {{{"gtopk", "gtopk:0.01", "global Top-k by pairwise merges (custom)"}, makeGTopK}, true},
      {{{"powersgd", "powersgd:2", "PowerSGD rank-R, warm start, built-in EF (custom)"},
        makePowerSgd},
       true},
  };
  return entries;
}

}  // namespace

CompressorPtr makeCompressor(std::string_view spec) {
  CompressorParams params = parseCompressorSpec(spec);
  const Entry& entry = lookupEntry(table(), params);
  if (params.errorFeedback && entry.builtInErrorFeedback) {
    params.fail(fmt::format("'{}' has error feedback built in; drop ',ef'", params.name));
  }
  CompressorPtr compressor = entry.make(params);
  if (params.errorFeedback) return std::make_unique<ErrorFeedback>(std::move(compressor));
  return compressor;
}

const std::vector<CompressorInfo>& registeredCompressors() {
  static const std::vector<CompressorInfo> infos = policyInfos(table());
  return infos;
}

std::string knownCompressors() {
  return knownSpecs(table());
}

}  // namespace tetrad
