#include "tetrad/arch/exchange.h"

#include "tetrad/core/error.h"

namespace tetrad {

PullResult Exchange::pushPull(std::span<const float>, std::span<float>) {
  TETRAD_FAIL(Unsupported, "--arch {} has no servers to push to and pull from", spec());
}

void Exchange::mixModels(std::span<float>, int64_t) {
  TETRAD_FAIL(Unsupported, "--arch {} averages, it does not mix models with neighbours", spec());
}

void Exchange::serve() {
  TETRAD_FAIL(Unsupported, "--arch {} has no server ranks", spec());
}

}  // namespace tetrad
