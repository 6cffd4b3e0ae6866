// The run's codec charge (--codec-cost): how a rank's compressor work —
// encode, decodes, a custom protocol's local arithmetic — reaches its clock
// (compress/codec_clock.h), and the clock that does it.
//
//   auto (default)   measured when the compute model is (--compute measured
//                    on a run that trains, and always under MPI); with
//                    --compute device:NAME the device profile's
//                    codec_profile; otherwise the host-CPU profile
//                    (configs/codec/host-cpu.json)
//   measured         each call's CPU time on the rank's thread, times the
//                    compute model's scale F of measured*F (a device F times
//                    as fast computes its codec F times as fast too)
//   profile:NAME     modelled: a codec profile by name (host-cpu, v100) or
//                    file (model/codec_profile.h); per call
//                    per_call + elements · per_element, gather decodes
//                    counted for every rank's packet (a payload-free rank
//                    pays for the decodes it skips)
//   none             nothing charged (the ablation that reproduces runs
//                    from before codec charging, time for time)
// Under MPI codec work takes real time: `measured` only records it
// (codec_time), `profile:` is refused. A timing-only run has no values to
// measure: `measured` is refused there.
//
// The charge advances the simulated clock of the rank that does the work
// (Transport::compute()) at the point where it does it, so an encode delays
// the bucket's first message and a decode the step; the run reports it as
// codec_time, apart from compute and communication (summary.json).
//
// Thread-safety: a RankCodecClock belongs to one rank; its worker, its
// communication task and a colocated shard's task may charge it (the total
// is atomic, the meter's too, the timeline locks).
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include "tetrad/compress/codec_clock.h"
#include "tetrad/model/codec_profile.h"
#include "tetrad/train/compute/compute_model.h"
#include "tetrad/train/record/run_meter.h"
#include "tetrad/train/record/timeline.h"
#include "tetrad/transport/transport.h"

namespace tetrad::train {

struct CodecChargeSpec {
  enum class Mode { kNone, kMeasured, kModelled } mode = Mode::kNone;
  double scale = 1;                                    // measured: the compute model's F
  std::shared_ptr<const model::CodecProfile> profile;  // modelled
  std::string describe() const;  // "none", "measured", "profile host-cpu (FILE)"
};

// Parses --codec-cost against the run; throws InvalidArgument naming the
// flag and the rule (and for a profile that lacks `compressSpecs`' families).
CodecChargeSpec resolveCodecCharge(const std::string& flag, const ComputeSpec& compute, bool mpi,
                                   bool timingOnly, const std::vector<std::string>& compressSpecs);

class RankCodecClock final : public CodecClock {
 public:
  RankCodecClock(Transport& transport, CodecChargeSpec spec);
  bool measures() const override { return spec_.mode == CodecChargeSpec::Mode::kMeasured; }
  void chargeSeconds(double seconds) override;
  void chargeModelled(const Compressor& compressor, CodecWork kind, size_t elements,
                      double calls) override;
  double chargedSeconds() const override { return charged_.load(); }
  // Where charges are booked: the rank's meter (codec time) and timeline (a
  // "codec" span per charge, on the communication track, where encode and
  // decode happen); either may be null.
  void attach(RunMeter* meter, Timeline* timeline) {
    meter_ = meter;
    timeline_ = timeline;
  }
  // The iteration the timeline's spans belong to (set by the loop).
  void setIteration(int64_t iteration) { iteration_ = iteration; }

 private:
  Transport& transport_;
  CodecChargeSpec spec_;
  // A colocated parameter-server shard's task charges too (a thread under MPI).
  std::atomic<double> charged_ = 0;
  RunMeter* meter_ = nullptr;
  Timeline* timeline_ = nullptr;
  int64_t iteration_ = 0;
};

}  // namespace tetrad::train
