// NetworkProfile: a network measured by `tetrad calibrate`, as a JSON file —
// the measured points (message size, median time, spread), the fitted
// piecewise latency and bandwidth factors per size interval (profile_fit.h),
// the fit's residuals, and where and how it was measured (Open MPI version
// and MCA settings, hosts, date, the nominal link the factors are relative
// to). The simulator applies the factors through SimGrid's
// network/latency-factor and network/bandwidth-factor items in interval
// syntax (simConfig()); the cost models through the same PiecewiseFactor
// values, so both model the same network.
//
// Format (version 1; docs/fidelity.md):
//   { "format": "tetrad-network-profile", "version": 1, "created": ISO date,
//     "hosts": [...], "ranks": N, "command": "...",
//     "mpi": {"library": "...", "mca": {NAME: VALUE}, "eager_limit": B, "piece_bytes": B},
//     "link": {"spec": "200Mbps,20us", "bandwidth": B/s, "latency": s},
//     "fit": {"series": "exchange", "simgrid_model": "CM02",
//             "rms_relative_error": x, "max_relative_error": x},
//     "intervals": [{"from_bytes": 0, "latency_factor": f, "bandwidth_factor": f,
//                    "alpha": s, "beta": s/B}, ...],
//     "simgrid": {"network/latency-factor": "0:f;T:f", "network/bandwidth-factor": "..."},
//     "points": [{"series": "exchange|pingpong|ring", "ranks": N, "bytes": B,
//                 "seconds": median, "min": s, "max": s, "repetitions": R,
//                 "fitted": s, "relative_error": x}, ...] }
//
// Loading checks everything a simulation relies on and throws InvalidArgument
// with one line naming the file and the problem (missing, not JSON or
// truncated, a missing key, intervals not increasing, a factor that is not
// positive, a bandwidth factor above 1, which SimGrid cannot apply).
//
// Thread-safety: plain values; functions are reentrant.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tetrad/model/netprofile/profile_fit.h"
#include "tetrad/transport/piecewise_factor.h"

namespace tetrad::model {

struct ProfilePoint {
  std::string series;  // "exchange", "pingpong" or "ring"
  int ranks = 2;
  uint64_t bytes = 0;
  double seconds = 0;  // median over the repetitions
  double min = 0;
  double max = 0;
  int repetitions = 0;
  double fitted = 0;         // the profile's prediction
  double relativeError = 0;  // fitted / seconds − 1
};

struct ProfileInterval {
  uint64_t fromBytes = 0;  // sizes > fromBytes (the first also 0)
  double latencyFactor = 1;
  double bandwidthFactor = 1;
  double alpha = 0;  // seconds (the fit's, = latency × latencyFactor)
  double beta = 0;   // seconds per byte
};

struct NetworkProfile {
  std::string created;  // ISO 8601, UTC
  std::vector<std::string> hosts;
  int ranks = 0;
  std::string command;
  std::string mpiLibrary;
  std::map<std::string, std::string> mca;
  uint64_t eagerLimit = 0;
  uint64_t pieceBytes = 0;
  std::string linkSpec;  // "200Mbps,20us"
  double bandwidth = 0;  // bytes/s, nominal
  double latency = 0;    // seconds, nominal
  std::string fitSeries = "exchange";
  double rmsRelativeError = 0;
  double maxRelativeError = 0;
  std::vector<ProfileInterval> intervals;
  std::vector<ProfilePoint> points;

  PiecewiseFactor latencyFactor() const;
  PiecewiseFactor bandwidthFactor() const;
  // The SimGrid items of a simulation on this profile: CM02 without cross
  // traffic (the α–β model) plus both factors in interval syntax.
  std::vector<std::string> simConfig() const;
  // FitOptions of the nominal link.
  FitOptions fitOptions() const;
  // The points of one series, in size order.
  std::vector<ProfilePoint> series(const std::string& name) const;
};

// Fills intervals, residuals and fitted values of `profile` from its points
// of series `profile.fitSeries` (profile_fit.h). Throws InvalidArgument as
// fitPiecewise does.
void fitProfile(NetworkProfile& profile, const FitOptions& options);

std::string toJson(const NetworkProfile& profile);
// `source` names the text in error messages (a path).
NetworkProfile parseNetworkProfile(const std::string& text, const std::string& source);
NetworkProfile loadNetworkProfile(const std::string& path);
void saveNetworkProfile(const NetworkProfile& profile, const std::string& path);

}  // namespace tetrad::model
