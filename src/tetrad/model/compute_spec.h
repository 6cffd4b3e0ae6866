// A compute model's text, parsed: the value `--compute` (and a sweep's
// `compute` key) denotes, without reading any device profile, so that every
// layer that asks "what kind of compute does this run charge?" (the trainer,
// timing-only, retime, sweeps' retime plans, the maps) reads the kind from
// one parser instead of testing a spelling.
//
//   measured        the measured seconds (default)
//   measured*F      measured seconds times F
//   fixed:DURATION  DURATION per iteration (e.g. fixed:50ms)
//   flops:GFLOPS    the model's FLOPs divided by GFLOPS x 1e9
//   throughput:S    batch / S seconds per iteration (S: samples per second
//                   of one device at the run's batch)
//   device:NAME     a device profile (configs/devices/NAME.json) or a
//   device:FILE     user's .json file: its published throughput for the
//                   run's model, else its effective FLOP rate
//
// throughput: and device: parse to kind kFixed whose `seconds` stay 0 until
// the model and batch are known: train/compute/compute_model.h's
// resolveComputeModel() reads the profile and fills them in (the text keeps
// its form). What each kind charges per phase is compute_model.h's.
//
// Plain values and pure functions (deviceNames() lists a folder); any thread.
#pragma once

#include <string>
#include <vector>

namespace tetrad::model {

struct ComputeSpec {
  enum class Kind { kMeasured, kFixed, kFlops } kind = Kind::kMeasured;
  double scale = 1;    // measured only
  double seconds = 0;  // fixed only
  double gflops = 0;   // flops only
  // throughput:S (and a device profile's published throughput): samples per
  // second of one device; `seconds` is batch / S once resolved.
  double samplesPerSecond = 0;
  // device:NAME|FILE: the profile's name or path as given (empty otherwise).
  std::string device;
  std::string toString() const;
};

// Throws InvalidArgument naming the rule. throughput:S gives kind kFixed
// with samplesPerSecond = S and seconds 0 until resolveComputeModel();
// device: gives kind kFixed with `device` set, resolved there too.
ComputeSpec parseComputeSpec(const std::string& text);

// The same compute model with its time per iteration multiplied by `factor`
// (> 0, finite): a duration multiplies, a rate (throughput:, flops:) divides.
// measured and device: have no rate to scale: InvalidArgument.
ComputeSpec scaleComputeTime(ComputeSpec spec, double factor);

// The forms parseComputeSpec() accepts, for errors, and the same with the
// shipped devices, for --compute's help text.
std::string computeModelForms();
std::string computeModelHelp();

// The shipped device profiles' names (configs/devices/*.json), sorted, and
// the same joined for an error message ("none found: ..." when there are
// none).
std::vector<std::string> deviceNames();
std::string joinedDeviceNames();

}  // namespace tetrad::model
