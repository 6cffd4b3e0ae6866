// local:H — Local SGD (Stich 2019; Lin et al. 2020): every worker takes H
// optimizer steps on its own gradients, then the models are averaged.
//
// What travels at the end of a period is the model change since the last
// average, Δ = x − x_anchor (not the parameters): a compressor then acts on
// Δ (as Qsparse-local-SGD does with Top-k and error feedback), and the
// average x_anchor + mean(Δ) is the same model either way without
// compression. Momentum buffers and other optimizer state stay local.
// local:1 with momentum 0 and weight decay 0 is BSP.
//
// post-local:T:H — post-local SGD (Lin et al., "Don't use large mini-batches,
// use local SGD", 2020): BSP for the first T iterations (T given as `Tep`:
// T epochs), then local:H. The switch happens exactly at iteration T.
#pragma once

#include "tetrad/core/spec.h"
#include "tetrad/sync/sync_policy.h"

namespace tetrad {

SyncPolicyPtr makeLocalSgd(const SpecParams& params, const SyncContext& context);
SyncPolicyPtr makePostLocalSgd(const SpecParams& params, const SyncContext& context);

}  // namespace tetrad
