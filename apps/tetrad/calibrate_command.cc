// `tetrad calibrate`: measures a real network under the MPI engine and
// writes a network profile (model/netprofile/network_profile.h) that
// `--net-model profile:FILE` applies to simulated clusters and cost models.
//
//   mpirun -np 2 tetrad calibrate --cluster mpi --link 200Mbps,20us --out net.json
//   scripts/netlab.sh mpirun -np 2 build/tetrad calibrate --cluster mpi --link ... --out ...
//
// --link names the nominal rate and latency of the links between the hosts;
// the fitted factors are relative to it (on loopback any value works). The
// measurements (pingpong, exchange, ring; calibration_run.h) run on every
// rank; rank 0 fits (profile_fit.h), writes the profile and prints a table of
// size, measured, fitted and relative error. See docs/fidelity.md.
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/model/netprofile/calibration_run.h"
#include "tetrad/model/netprofile/network_profile.h"
#include "tetrad/transport/tag_space.h"

extern char** environ;

namespace tetrad::app {
namespace {

struct CalibrateFlags {
  std::string cluster = "mpi";
  std::string link;
  std::string out;
  std::string minBytes = "8";
  std::string maxBytes = "64MiB";
  double stepFactor = 2;
  int repetitions = 11;
  int warmup = 2;
  std::string fit = "exchange";
  double timeout = 600;
  bool quiet = false;
};

std::string isoDate() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::array<char, 32> text{};
  std::tm utc{};
  gmtime_r(&now, &utc);
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

std::string hostName() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

// The first line of `command`'s output ("" if it cannot run).
std::string firstLine(const char* command) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command, "r"), pclose);
  if (!pipe) return "";
  std::array<char, 256> line{};
  if (std::fgets(line.data(), line.size(), pipe.get()) == nullptr) return "";
  std::string text = line.data();
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

// MCA settings given to this process (mpirun --mca and OMPI_MCA_* variables);
// everything else is at Open MPI's defaults.
std::map<std::string, std::string> mcaSettings() {
  std::map<std::string, std::string> mca;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string entry = *e;
    if (!entry.starts_with("OMPI_MCA_")) continue;
    const size_t eq = entry.find('=');
    if (eq == std::string::npos) continue;
    const std::string name = entry.substr(9, eq - 9);
    // Open MPI's own bookkeeping of the launch, not a setting of the network.
    if (name.starts_with("orte_") || name.starts_with("ess_") || name.starts_with("pmix") ||
        name.starts_with("mpi_yield") || name == "initial_wdir") {
      continue;
    }
    mca[name] = entry.substr(eq + 1);
  }
  return mca;
}

uint64_t eagerLimit(const std::map<std::string, std::string>& mca) {
  if (auto it = mca.find("btl_tcp_eager_limit"); it != mca.end())
    return static_cast<uint64_t>(parseBytes(it->second));
  return 65536;  // Open MPI's default
}

void printTable(const model::NetworkProfile& profile) {
  std::printf("# intervals (factors relative to --link %s):\n", profile.linkSpec.c_str());
  for (const model::ProfileInterval& i : profile.intervals) {
    std::printf("#   > %12llu B: latency factor %8.3f (alpha %s), bandwidth factor %.3f (%s)\n",
                static_cast<unsigned long long>(i.fromBytes), i.latencyFactor,
                formatSeconds(i.alpha).c_str(), i.bandwidthFactor,
                formatBandwidth(1 / i.beta).c_str());
  }
  std::printf("# fit on %s: rms relative error %.3f, max %.3f\n", profile.fitSeries.c_str(),
              profile.rmsRelativeError, profile.maxRelativeError);
  std::printf("%-9s %5s %12s %12s %12s %8s\n", "series", "ranks", "bytes", "measured", "fitted",
              "rel.err");
  for (const model::ProfilePoint& p : profile.points) {
    std::printf("%-9s %5d %12llu %12s %12s %+8.3f\n", p.series.c_str(), p.ranks,
                static_cast<unsigned long long>(p.bytes), formatSeconds(p.seconds).c_str(),
                formatSeconds(p.fitted).c_str(), p.relativeError);
  }
}

void runCalibrate(const CalibrateFlags& f, const std::string& commandLine) {
  TETRAD_CHECK(isMpiCluster(f.cluster), InvalidArgument,
               "tetrad calibrate measures a real network: run it under mpirun with --cluster mpi "
               "(got --cluster {})",
               f.cluster);
  TETRAD_CHECK(!f.out.empty(), InvalidArgument, "tetrad calibrate: --out FILE is required");
  // Open MPI's mpirun tells every rank the world size; without it this
  // process would be a world of one (MPI's singleton start).
  const char* worldSize = std::getenv("OMPI_COMM_WORLD_SIZE");
  const int ranks = worldSize == nullptr ? 1 : std::atoi(worldSize);
  TETRAD_CHECK(ranks >= 2, InvalidArgument,
               "tetrad calibrate measures the network between ranks: it needs 2 or more ranks "
               "(mpirun -np 2 ...), got {}",
               ranks);
  const size_t comma = f.link.find(',');
  TETRAD_CHECK(comma != std::string::npos, InvalidArgument,
               "--link wants BANDWIDTH,LATENCY of the links between the hosts (e.g. "
               "200Mbps,20us), got '{}'",
               f.link);
  const double bandwidth = parseBandwidth(std::string_view(f.link).substr(0, comma));
  const double latency = parseDuration(std::string_view(f.link).substr(comma + 1));
  TETRAD_CHECK(latency > 0, InvalidArgument, "--link: the latency must be positive, got '{}'",
               f.link);
  TETRAD_CHECK(f.fit == "exchange" || f.fit == "pingpong", InvalidArgument,
               "--fit wants exchange or pingpong, got '{}'", f.fit);
  TETRAD_CHECK(f.repetitions >= 1 && f.warmup >= 0, InvalidArgument,
               "--repetitions must be >= 1 and --warmup >= 0");
  model::CalibrationPlan plan;
  plan.sizes = model::geometricSizes(parseBytes(f.minBytes), parseBytes(f.maxBytes), f.stepFactor);
  plan.repetitions = f.repetitions;
  plan.minRepetitions = std::min(5, f.repetitions);
  plan.warmup = f.warmup;
  if (!f.quiet) {
    plan.progress = [](const std::string& line) {
      std::fprintf(stderr, "%s\n", line.c_str());
      std::fflush(stderr);
    };
  }
  LaunchOptions options;
  options.cluster = f.cluster;
  options.timeoutSeconds = f.timeout;
  launch(options, [&](Transport& t) {
    TagSpace tags;
    const Tag hostTag = tags.reserve(1, "calibrate hosts");
    // Every rank's host name, in rank order.
    const std::string own = hostName();
    std::vector<std::string> hosts;
    for (int r = 0; r < t.size(); ++r) {
      if (r == t.rank()) {
        hosts.push_back(own);
        for (int q = 0; q < t.size(); ++q)
          if (q != r)
            t.send(q, hostTag,
                   ConstBytes(reinterpret_cast<const std::byte*>(own.data()), own.size()));
      } else {
        ByteBuffer name = t.recvMessage(r, hostTag);
        hosts.emplace_back(reinterpret_cast<const char*>(name.data()), name.size());
      }
    }
    std::vector<model::ProfilePoint> points = model::measureNetwork(t, tags, plan);
    if (t.rank() != 0) return;
    model::NetworkProfile profile;
    profile.created = isoDate();
    profile.hosts = hosts;
    profile.ranks = t.size();
    profile.command = commandLine;
    profile.mpiLibrary = firstLine("ompi_info --version 2>/dev/null");
    profile.mca = mcaSettings();
    profile.eagerLimit = eagerLimit(profile.mca);
    const char* pieces = std::getenv("TETRAD_MPI_PIECE_BYTES");
    profile.pieceBytes =
        pieces != nullptr ? parseBytes(pieces) : profile.eagerLimit - 128;  // mpi_transport.h
    profile.linkSpec = f.link;
    profile.fitSeries = f.fit;
    profile.points = std::move(points);
    model::FitOptions fit;
    fit.nominalLatency = latency;
    fit.nominalBandwidth = bandwidth;
    model::fitProfile(profile, fit);
    model::saveNetworkProfile(profile, f.out);
    printTable(profile);
    std::printf("# wrote %s (use: --net-model profile:%s)\n", f.out.c_str(), f.out.c_str());
    std::fflush(stdout);
  });
}

CommandRegistration registration([](CommandGroups& groups) {
  auto f = std::make_shared<CalibrateFlags>();
  CLI::App* cmd = groups.root->add_subcommand(
      "calibrate",
      "Measure the real network between MPI ranks and write a network profile for "
      "--net-model profile:FILE (run under mpirun, 2 or more ranks)");
  cmd->add_option("--cluster", f->cluster, "mpi (a simulated cluster has nothing to measure)")
      ->capture_default_str();
  cmd->add_option("--link", f->link,
                  "nominal BANDWIDTH,LATENCY of the links between the hosts, which the fitted "
                  "factors are relative to (e.g. 200Mbps,20us)")
      ->required();
  cmd->add_option("--out", f->out, "the profile file to write (JSON)")->required();
  cmd->add_option("--min-bytes", f->minBytes, "smallest message")->capture_default_str();
  cmd->add_option("--max-bytes", f->maxBytes, "largest message")->capture_default_str();
  cmd->add_option("--step-factor", f->stepFactor, "size multiplier between sizes")
      ->capture_default_str();
  cmd->add_option("--repetitions", f->repetitions,
                  "repetitions per size up to 1 MiB (median; fewer above, at least 5)")
      ->capture_default_str();
  cmd->add_option("--warmup", f->warmup, "untimed repetitions per size")->capture_default_str();
  cmd->add_option("--fit", f->fit,
                  "series the factors are fitted on: exchange (both directions at once, as in "
                  "collectives) or pingpong")
      ->capture_default_str();
  cmd->add_option("--timeout", f->timeout, "seconds any wait may take")->capture_default_str();
  cmd->add_flag("--quiet", f->quiet, "no progress lines");
  cmd->callback([f, cmd] {
    std::string line = "tetrad calibrate";
    for (const std::string& arg : cmd->remaining()) line += " " + arg;
    line += " --link " + f->link + " --out " + f->out + " --min-bytes " + f->minBytes +
            " --max-bytes " + f->maxBytes;
    runCalibrate(*f, line);
  });
});

}  // namespace
}  // namespace tetrad::app
