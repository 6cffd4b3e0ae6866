// GuardRider: the non-finite guard's word, riding on a gradient exchange the
// iteration makes anyway, so that `--on-nonfinite stop` adds no message.
//
// Each rank puts in a word — 1 when it has something to report (a
// non-finite loss or gradient, or a stop request), else 0 — and gets back
// the sum over the ranks (or 1 for "some rank reported"). The word travels
//   summable compressors (none, fp16, bf16, Random-k)  as the reduced
//       bucket's own non-finiteness: a rank that reports makes its bucket
//       non-finite (a NaN in its first element), a sum with a NaN or an Inf
//       in it is non-finite on every rank alike, and a finite run sums
//       exactly what it would sum without the guard (same length, same
//       order, same bits). It cannot carry a stop request (a run that
//       checkpoints falls back to the guard's round there); it does catch
//       what the encoding itself overflows (fp16 beyond 65504);
//   gather compressors  in the 32-bit `reserved` field of every packet's
//       header, which every rank receives (compressor.h; zeroed again before
//       decoding);
//   custom protocols  not at all (carried = false).
// A sum above zero tells every rank alike that some rank has something to
// report; only then does the guard run its own round to learn which rank,
// tensor and kind (train/loop/nonfinite_guard.h), so a finite iteration
// sends exactly the messages of a run without the guard.
//
// The exchange scans each gradient bucket before it is encoded
// (scanNonFinite, one multiply-add per float) and the bucket that carries
// the word is the iteration's last, so every bucket has been scanned by
// then: firstBad is this rank's first non-finite element (flat offset).
//
// Owned by the worker loop, one per rank; the exchange (or its
// communication task) writes it during the iteration, the loop reads it
// after the exchange has finished.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

namespace tetrad {

struct GuardRider {
  float word = 0;         // in: this rank's; out: the sum over the ranks
  bool carried = false;   // set by the exchange that carried it
  int64_t firstBad = -1;  // this rank's first non-finite gradient element
  bool firstBadIsInf = false;

  // A new iteration: `report` is this rank's word before the gradients are
  // scanned (a non-finite loss, a stop request).
  void arm(bool report) {
    word = report ? 1.0f : 0.0f;
    carried = false;
    firstBad = -1;
    firstBadIsInf = false;
  }
  bool anyReported() const { return word > 0.5f; }
};

// Index of the first non-finite element of `values` (and whether it is
// infinite), or -1. One pass; the common all-finite case does no branch per
// element.
int64_t scanNonFinite(std::span<const float> values, bool* isInf = nullptr);

}  // namespace tetrad
