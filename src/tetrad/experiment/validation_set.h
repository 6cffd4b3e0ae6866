// The validation set: published measurements of data-parallel training on
// real clusters (configs/validation/*.toml), each with its source and set-up,
// that `tetrad validate` predicts with the timing-only engines
// (docs/validation.md).
//
// A file holds [[point]] tables. Every key below is required unless marked
// optional; a missing or mistyped key, an unknown key or a bad value throws
// InvalidArgument with one line "FILE:LINE: point ID: key 'KEY' ...".
//
//   id              unique across the set
//   source, url     the publication and its table or figure
//   model           a zoo model (sched/model_zoo.h)
//   device          device and precision as published ("V100 16GB, FP32")
//   batch           samples per device and iteration
//   nodes, devices_per_node
//   intra, inter    the networks as published ("NVLink", "25 Gb/s RoCE")
//   library         the collective library ("NCCL", "Gloo", "MPI")
//   method          the method as published, with its parameters
//   metric          throughput (samples/s of the cluster) | efficiency
//                   (throughput / (devices × single)) | speedup (this
//                   point's throughput over `baseline`'s) | iteration_time (s)
//   published       the published value of `metric`
//   single          one device's throughput (samples/s) the prediction
//                   starts from; single_source: where it is published
//   cluster         the tetrad cluster spec (sim:NxG:BW1,LAT1:BW2,LAT2 ...);
//                   cluster_source: where its links' figures come from
//   args            optional: extra `tetrad train` flags for the method
//                   (["--compress", "powersgd:2"])
//   baseline        metric speedup: the id of the baseline point
//   fitted          optional, default false: the point is one of those the
//                   set's one global constant was fitted on (the tcp network
//                   model's achieved fraction, docs/validation.md); the
//                   others judge it
//
// Pure parsing; thread-safe.
#pragma once

#include <string>
#include <vector>

namespace tetrad::experiment {

struct ValidationPoint {
  std::string id, file;
  int line = 0;
  std::string source, url, model, device, intra, inter, library, method, metric;
  std::string singleSource, cluster, clusterSource, baseline;
  int batch = 0, nodes = 0, devicesPerNode = 0;
  double published = 0, single = 0;
  bool fitted = false;
  std::vector<std::string> args;
  int devices() const { return nodes * devicesPerNode; }
};

// Every *.toml file of `dir`, sorted by name, points in file order. Throws
// InvalidArgument (one line naming file, line and key) on any bad point, a
// duplicate id, a speedup whose baseline is missing, or an empty set.
std::vector<ValidationPoint> loadValidationSet(const std::string& dir);

// One file's points (no cross-point checks).
std::vector<ValidationPoint> loadValidationFile(const std::string& file);

}  // namespace tetrad::experiment
