// RunStatus: how a training run ended. Every rank of a run agrees on it
// (the non-finite guard and the stop signal are decided collectively), and
// summary.json records it as the text of toString().
//
// Thread-safety: plain values.
#pragma once

#include <string_view>

namespace tetrad::train {

enum class RunStatus {
  kFinished,     // every iteration ran
  kDiverged,     // the non-finite guard stopped the run (--on-nonfinite stop)
  kInterrupted,  // a stop signal ended it after a checkpoint (resume to go on)
};

// "finished", "diverged", "interrupted" (summary.json's "status").
constexpr std::string_view toString(RunStatus status) {
  switch (status) {
    case RunStatus::kFinished:
      return "finished";
    case RunStatus::kDiverged:
      return "diverged";
    case RunStatus::kInterrupted:
      return "interrupted";
  }
  return "finished";
}

}  // namespace tetrad::train
