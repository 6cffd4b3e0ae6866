// Device profiles: what one accelerator (or the host CPU) does, as published,
// for `--compute device:NAME|FILE` (compute_model.h) and `tetrad validate`.
//
// A profile is a JSON file (configs/devices/NAME.json; format in
// docs/validation.md) with, every figure beside its source:
//   name, description, source              the device, precision, software
//   effective_gflops, effective_source     the FLOP rate for models without a
//                                          published throughput
//   node_link {bandwidth, latency, source} the link between devices of one node
//                                          (NVLink, PCIe): the first level of a
//                                          two-level cluster `sim:NxG:device:BW,LAT`
//   codec_profile                          a codec profile under configs/codec/,
//                                          passed through (codec-cost's format)
//   throughputs [{model, batch, samples_per_second, source}]
//                                          published single-device training
//                                          throughputs per zoo model
// A missing key, a non-positive figure or an empty source is an
// InvalidArgument naming the file and the key (one line).
//
// Loading reads the file each call; the values are plain and thread-safe.
#pragma once

#include <string>
#include <vector>

#include "tetrad/model/compute_spec.h"

namespace tetrad::train {

struct DeviceThroughput {
  std::string model;  // a zoo model name, with ":SEQ" where the length matters
  int batch = 0;
  double samplesPerSecond = 0;
  std::string source;
};

struct DeviceProfile {
  std::string name, description, source, path;
  double effectiveGflops = 0;
  std::string effectiveSource;
  double linkBandwidth = 0;  // bytes per second, each direction
  double linkLatency = 0;    // seconds
  std::string linkText;      // "150GBps,5us": a cluster spec's link
  std::string linkSource;
  std::string codecProfile;  // as given (a path under configs/codec/)
  std::vector<DeviceThroughput> throughputs;

  // The published throughput for `model` ("bert-base" matches an entry
  // "bert-base" or "bert-base:128" when 128 is its default), or nullptr.
  const DeviceThroughput* throughputFor(const std::string& model) const;
};

// NAME (configs/devices/NAME.json) or a path ending in ".json".
DeviceProfile loadDeviceProfile(const std::string& nameOrFile);

// The shipped profiles' names (configs/devices/*.json): model/compute_spec.h.
using model::deviceNames;
using model::joinedDeviceNames;

// `sim:NxG:device:BW2,LAT2` → `sim:NxG:LINK:BW2,LAT2` with the profile's
// node link; any other spec unchanged. Throws InvalidArgument when the spec
// names `device` and no profile is given.
std::string substituteNodeLink(const std::string& cluster, const DeviceProfile* profile);
// The same from the --compute text: its profile when it is device:NAME|FILE.
std::string clusterWithNodeLink(const std::string& cluster, const std::string& compute);

}  // namespace tetrad::train
