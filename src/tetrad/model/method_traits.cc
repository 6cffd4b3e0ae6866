#include "tetrad/model/method_traits.h"

#include "tetrad/arch/registry.h"
#include "tetrad/compress/registry.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/sync/registry.h"

namespace tetrad::model {

MethodTraits methodTraits(const Method& method) {
  MethodTraits traits;
  const SyncPolicyPtr sync = makeSyncPolicy(method.sync);
  traits.modelAveraging = sync->averagesModels();
  traits.synchronous = sync->mode() == SyncMode::kCollective && !traits.modelAveraging;
  const ArchShape arch = describeArch(method.arch);
  traits.collective = arch.averagesByCollective;
  traits.mixesModels = arch.mixesModels;
  const CompressorPtr compressor = makeCompressor(method.compress);
  const CompressorTheory theory = compressorTheory(*compressor);
  traits.uncompressed = compressor->isIdentity();
  traits.halfPrecision = theory == CompressorTheory::kExact && !traits.uncompressed;
  traits.errorFeedback = theory == CompressorTheory::kErrorFeedback;
  return traits;
}

}  // namespace tetrad::model
