// CodecClock: where a compressor's own work is charged — its encode, its
// decodes, and the local arithmetic of a custom protocol (PowerSGD's
// products and orthogonalisation, the majority vote's counting, gTop-k's
// merges) — so that simulated time pays what a real system pays.
//
// Two ways to charge, chosen by the run (train/loop/codec_charge.h):
//   measured  timeCodec() runs the work and charges its CPU time on this
//             thread (CLOCK_THREAD_CPUTIME_ID: a simulated rank's actor
//             shares its OS thread only with actors that are not running,
//             and the compute pool's threads are not counted);
//   modelled  the work runs uncharged and chargeModelled() charges what a
//             codec profile (model/codec_profile.h) says `calls` calls of
//             that kind cost for `elements` elements — so a payload-free
//             rank that skips the other ranks' decodes still pays for them.
// aggregate() (aggregate.h) calls both around every encode and decode, so
// each call is charged by exactly one of them; custom protocols wrap their
// local arithmetic in timeCodec() and aggregate() charges their modelled
// cost once per call.
//
// Owned by the caller (one per rank); one thread at a time (the rank's
// worker or its communication task, never both at once).
#pragma once

#include <time.h>

#include <cstddef>
#include <type_traits>

namespace tetrad {

class Compressor;

enum class CodecWork { kEncode, kDecode };

class CodecClock {
 public:
  virtual ~CodecClock() = default;
  // True: timeCodec() measures; false: chargeModelled() charges.
  virtual bool measures() const = 0;
  // Charges `seconds` of codec work to this rank (advances a simulated
  // clock; counted in the run's codec time).
  virtual void chargeSeconds(double seconds) = 0;
  // The modelled cost of `calls` calls of `kind` by `compressor` on vectors
  // of `elements` elements; does nothing when the clock measures.
  virtual void chargeModelled(const Compressor& compressor, CodecWork kind, size_t elements,
                              double calls = 1) = 0;
  // Seconds charged so far.
  virtual double chargedSeconds() const = 0;
};

inline double threadCpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Runs `work` (computation only: no message may be sent or awaited inside)
// and, when `clock` measures, charges its CPU time. A null clock charges
// nothing.
template <typename F>
decltype(auto) timeCodec(CodecClock* clock, F&& work) {
  if (clock == nullptr || !clock->measures()) return work();
  const double start = threadCpuSeconds();
  if constexpr (std::is_void_v<decltype(work())>) {
    work();
    clock->chargeSeconds(threadCpuSeconds() - start);
  } else {
    auto result = work();
    clock->chargeSeconds(threadCpuSeconds() - start);
    return result;
  }
}

inline void chargeModelled(CodecClock* clock, const Compressor& compressor, CodecWork kind,
                           size_t elements, double calls = 1) {
  if (clock != nullptr) clock->chargeModelled(compressor, kind, elements, calls);
}

}  // namespace tetrad
