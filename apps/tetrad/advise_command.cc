// `tetrad advise`: ranks data-parallel methods by their predicted time to
// target — time per iteration from the α–β cost models of src/tetrad/model/
// (docs/advise.md) × the iteration multiplier of the convergence theory
// (docs/convergence.md) — on a workload and a cluster; with --results DIR it
// ranks by time per iteration, as before, and checks the advisor's pick
// against a finished sweep with its measured iterations.
//
//   tetrad advise --model cnn --workers 8 --cluster sim:1Gbps,50us
//   tetrad advise --params 100M --compute 120ms --cluster sim:16x10Gbps,25us
//   tetrad advise --model mlp --cluster sim:4x1Gbps,50us --results runs/quick
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>

#include "tetrad/mapping/advise_map.h"
#include "command.h"
#include "tetrad/mapping/map_runs.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/units.h"
#include "tetrad/experiment/run_groups.h"
#include "tetrad/experiment/run_record.h"
#include "tetrad/model/advice_table.h"
#include "tetrad/model/advisor.h"
#include "tetrad/model/codec_cost.h"
#include "tetrad/model/compression_error.h"
#include "tetrad/model/iteration_theory.h"
#include "tetrad/model/netprofile/net_model_choice.h"
#include "tetrad/model/schedule_advice.h"
#include "tetrad/model/validation.h"
#include "tetrad/train/compute/model_file.h"
#include "tetrad/train/train_config.h"

namespace tetrad::app {
namespace {

struct AdviseFlags {
  std::string model, params, compute, gflops, cluster, results, netModel, input;
  std::string bucketSize = "auto";   // as tetrad train's --bucket-size
  std::string onNonFinite = "stop";  // as tetrad train's --on-nonfinite
  int workers = -1;
  int batch = 64;
  int psShards = 1;
  int repetitions = 5;
  int top = 0;
  double noiseRatio = model::kDefaultNoiseRatio;
  double momentum = model::kDefaultMomentum;  // as tetrad train's --momentum
  bool noMeasure = false;
  bool explain = false;  // the derivations of every row (the default: advice_table.h)
  // "": measure here (or nominal with --no-measure); profile:NAME|FILE: a
  // codec profile, as timing-only runs charge it; none: no codec time.
  std::string codecCost;
};

constexpr double kDefaultGflops = 100;

struct InputSize {
  int channels = 1, height = 28, width = 28;
};

// "CxHxW" (empty: Fashion-MNIST's 1x28x28).
InputSize parseInputSize(const std::string& text) {
  InputSize size;
  if (text.empty()) return size;
  char x1 = 0, x2 = 0;
  int consumed = 0;
  const int read = std::sscanf(text.c_str(), "%d%c%d%c%d%n", &size.channels, &x1, &size.height, &x2,
                               &size.width, &consumed);
  TETRAD_CHECK(read == 5 && x1 == 'x' && x2 == 'x' && size_t(consumed) == text.size() &&
                   size.channels > 0 && size.height > 0 && size.width > 0,
               InvalidArgument, "invalid --input '{}' (use CxHxW, e.g. 3x32x32)", text);
  return size;
}

void checkAdviseFlags(const AdviseFlags& f) {
  TETRAD_CHECK(f.model.empty() != f.params.empty(), InvalidArgument,
               "give exactly one of --model NAME and --params N");
  TETRAD_CHECK(f.compute.empty() || f.gflops.empty(), InvalidArgument,
               "give at most one of --compute DUR and --gflops X");
  TETRAD_CHECK(f.workers == -1 || f.workers >= 1, InvalidArgument, "--workers must be >= 1, got {}",
               f.workers);
  TETRAD_CHECK(f.repetitions >= 1, InvalidArgument, "--repetitions must be >= 1, got {}",
               f.repetitions);
  TETRAD_CHECK(f.top >= 0, InvalidArgument, "--top must be >= 0, got {}", f.top);
  TETRAD_CHECK(f.noiseRatio >= 0 && std::isfinite(f.noiseRatio), InvalidArgument,
               "--noise-ratio must be a finite number >= 0, got {}", f.noiseRatio);
  TETRAD_CHECK(f.momentum >= 0 && f.momentum < 1, InvalidArgument,
               "--momentum must be in [0, 1), got {}", f.momentum);
}

// The workload of --model NAME, --model FILE.pt (with --input) or --params N,
// cut into buckets as tetrad train cuts it.
model::Workload workloadOf(const AdviseFlags& f) {
  model::Workload workload;
  if (f.model.empty()) {
    workload = model::parameterWorkload(parseParameterCount(f.params));
  } else if (train::isModelFile(f.model)) {
    const InputSize input = parseInputSize(f.input);
    workload = train::scriptedWorkload(f.model, input.channels, input.height, input.width);
  } else {
    TETRAD_CHECK(f.input.empty(), InvalidArgument,
                 "--input applies to a model file (--model FILE.pt); model {} has its own",
                 f.model);
    workload = model::modelWorkload(f.model);
  }
  try {
    workload.bucketBytes = train::bucketBytes(f.bucketSize);  // as tetrad train
  } catch (const InvalidArgument&) {
    throw InvalidArgument(fmt::format(
        "invalid --bucket-size '{}' (auto, 0 for one bucket per tensor, or a size such as 4MiB)",
        f.bucketSize));
  }
  return workload;
}

// --codec-cost: a shipped or given profile, none, or measured here (nominal
// with --no-measure); each (compressor, workload) priced once.
model::CodecFunction codecFunction(const AdviseFlags& f,
                                   std::shared_ptr<const model::CodecProfile>& profile) {
  TETRAD_CHECK(f.codecCost.empty() || f.codecCost == "none" ||
                   (f.codecCost.starts_with("profile:") && f.codecCost.size() > 8),
               InvalidArgument, "invalid --codec-cost '{}' (none or profile:NAME|FILE)",
               f.codecCost);
  if (f.codecCost.starts_with("profile:")) {
    profile =
        std::make_shared<const model::CodecProfile>(model::loadCodecProfile(f.codecCost.substr(8)));
  }
  auto cache = std::make_shared<std::map<std::string, model::CodecCost>>();
  return [&f, cache, profile](const Compressor& c, const model::Workload& w) {
    const std::string key = c.spec() + "@" + w.name;
    auto it = cache->find(key);
    if (it != cache->end()) return it->second;
    model::CodecCost cost;
    if (profile) {
      cost = model::profileCodec(*profile, c, w);
    } else if (f.codecCost == "none") {
      cost = {0, 0, false, "none"};
    } else {
      cost = f.noMeasure ? model::nominalCodec(c, w) : model::measureCodec(c, w, f.repetitions);
    }
    return (*cache)[key] = cost;
  };
}

void printHeader(const AdviseFlags& f, const model::ModelContext& context,
                 const model::CodecProfile* profile) {
  const model::Workload& w = context.workload;
  const std::string what = f.model.empty() ? fmt::format("{} parameters", w.parameters)
                                           : fmt::format("{}, {} parameters", w.name, w.parameters);
  std::printf("# tetrad advise: %s in %zu tensor%s; batch %d; compute %s (%s)\n", what.c_str(),
              w.tensors.size(), w.tensors.size() == 1 ? "" : "s", f.batch,
              formatSeconds(context.compute.seconds).c_str(), context.compute.text.c_str());
  std::printf("# cluster %s: %d workers, %s\n", f.cluster.c_str(), context.network.workers,
              context.network.describe().c_str());
  if (profile) {
    std::printf("# codec: profile %s (%s), as timing-only runs charge it\n", profile->name.c_str(),
                profile->path.c_str());
  } else if (f.codecCost == "none") {
    std::printf("# codec: none (--codec-cost none)\n");
  } else if (f.noMeasure) {
    std::printf("# codec: nominal throughputs (--no-measure; docs/advise.md)\n");
  } else {
    std::printf(
        "# codec: measured here, median of %d rounds of encode + decodeAdd over the "
        "model's tensors%s\n",
        f.repetitions,
        w.parameters > model::kMeasureElements ? " (4M floats, scaled to the model)" : "");
  }
}

// The ranking's lines (up to --top ranked ones) and the ranked predictions
// with the milliseconds printed for each. Without --results: time to target
// = time per iteration × multiplier. With it: time per iteration, as the
// validation compares it with measured iterations.
std::vector<std::pair<model::Prediction, double>> printRanking(
    const AdviseFlags& f, const model::ModelContext& context, const model::Ranking& ranking,
    const model::PenaltyTable& penalties) {
  std::vector<std::string> lines;
  std::vector<std::pair<model::Prediction, double>> order;  // ranked, with printed ms
  if (f.results.empty()) {
    auto errors = std::make_shared<std::map<std::string, double>>();
    const model::Workload workload = context.workload;
    const model::CompressionErrorFunction error = [errors, workload](const Compressor& c) {
      auto it = errors->find(c.spec());
      if (it != errors->end()) return it->second;
      return (*errors)[c.spec()] = model::measureWorkloadError(c, workload).ratio;
    };
    const model::TargetRanking target = model::rankByTimeToTarget(ranking, context.network.workers,
                                                                  f.noiseRatio, f.momentum, error);
    const std::string source = f.noiseRatio == model::kDefaultNoiseRatio
                                   ? model::kDefaultNoiseRatioSource
                                   : "--noise-ratio";
    if (f.explain) {
      std::printf(
          "# predicted time to target, in ms per BSP iteration = time per iteration × iteration "
          "multiplier [its theory: docs/convergence.md; ω, δ measured here on Gaussian vectors "
          "of the model's buckets; noise ratio s = %g, %s]; [! ...] caveats\n",
          f.noiseRatio, source.c_str());
      lines = model::formatTargetRanking(target, penalties);
    } else {
      const model::AdviceTable table = model::formatAdviceTable(target);
      std::printf(
          "# to target: predicted time to the same accuracy relative to %s = time per "
          "iteration × iterations\n# iterations: convergence theory (docs/convergence.md) at "
          "noise ratio s = %g, %s\n",
          table.reference.c_str(), f.noiseRatio, source.c_str());
      // The column names as a comment, the rows indented alike.
      for (size_t i = 0; i < table.lines.size(); ++i) {
        lines.push_back((i == 0 ? "# " : "  ") + table.lines[i]);
      }
      if (table.hidden > 0) {
        lines.push_back(fmt::format(
            "# {} slower all-reduce algorithms of the same methods left out; every row with its "
            "derivation: --explain",
            table.hidden));
      } else {
        lines.push_back("# every row with its derivation: --explain");
      }
    }
    for (const auto* part : {&target.covered, &target.uncovered}) {
      for (const model::TargetPrediction& t : *part) order.emplace_back(t.perIteration, t.seconds);
    }
  } else {
    std::printf("# predicted time per iteration (ms) = its derivation; [! ...] caveats\n");
    lines = model::formatRanking(ranking, penalties);
    for (const model::Prediction& p : ranking.ranked) order.emplace_back(p, p.seconds);
  }
  int printed = 0;
  for (const std::string& line : lines) {
    const bool ranked = !line.starts_with("#");
    if (f.top > 0 && printed >= f.top) break;
    std::printf("%s\n", line.c_str());
    if (ranked) ++printed;
  }
  return order;
}

void printFastest(const std::vector<std::pair<model::Prediction, double>>& order) {
  for (const auto& [p, seconds] : order) {
    if (!p.flags.empty()) continue;
    std::printf("# fastest without accuracy caveats: %s (%.3f ms)\n", p.method.label().c_str(),
                seconds * 1e3);
    break;
  }
}

void runAdvise(const AdviseFlags& f) {
  checkAdviseFlags(f);
  model::ModelContext context;
  context.workload = workloadOf(f);
  TETRAD_CHECK(f.onNonFinite == "stop" || f.onNonFinite == "skip" || f.onNonFinite == "off",
               InvalidArgument, "invalid --on-nonfinite '{}' (stop, skip or off)", f.onNonFinite);
  context.nonFiniteGuard = f.onNonFinite != "off";
  // No --net-model: cm02, the simulator's default for tetrad train.
  context.network =
      model::withNetModel(model::networkModel(f.cluster, f.workers < 0 ? 0 : f.workers),
                          f.netModel.empty() ? std::string("cm02") : f.netModel);
  const double fixed = f.compute.empty() ? -1 : parseDuration(f.compute);
  const double gflops = f.gflops.empty() ? kDefaultGflops : parseNumber(f.gflops, "--gflops");
  auto computeOf = [&](const model::Workload& w) {
    return model::computeTime(w, f.batch, fixed, gflops);
  };
  context.compute = computeOf(context.workload);
  const std::vector<model::Method> candidates = model::candidateMethods(f.psShards);
  std::vector<model::MeasuredCluster> measured;
  if (!f.results.empty()) measured = mapping::measuredClustersOf(f.results);
  std::shared_ptr<const model::CodecProfile> profile;
  context.codec = codecFunction(f, profile);

  printHeader(f, context, profile.get());
  const model::Ranking ranking = model::rankMethods(candidates, context);
  const model::PenaltyTable penalties = model::measuredPenalties(measured);
  const auto order = printRanking(f, context, ranking, penalties);
  for (const std::string& skipped : ranking.skipped) {
    std::printf("# skipped %s\n", skipped.c_str());
  }
  if (f.explain || !f.results.empty()) {
    for (const std::string& line : model::formatScheduleAdvice(ranking, context)) {
      std::printf("%s\n", line.c_str());
    }
  }
  printFastest(order);
  if (!f.results.empty()) {
    std::printf(
        "# validation against %s: advised (fastest predicted among the methods that "
        "ran) vs measured fastest to target, per cluster\n",
        f.results.c_str());
    const model::Agreement agreement =
        model::compareWithResults(measured, computeOf, context.codec);
    for (const std::string& line : model::formatAgreement(agreement)) {
      std::printf("%s\n", line.c_str());
    }
  }
  std::fflush(stdout);
}

CommandRegistration registration([](CommandGroups& groups) {
  auto f = std::make_shared<AdviseFlags>();
  CLI::App* cmd = groups.root->add_subcommand(
      "advise",
      "Rank methods by predicted time to target (alpha-beta cost models x convergence theory)");
  cmd->add_option("--model", f->model,
                  "model whose tensors and FLOPs to use: mlp, cnn, resnet20, or a TorchScript "
                  "FILE.pt");
  cmd->add_option("--input", f->input,
                  "a model file's input: CxHxW (default 1x28x28, Fashion-MNIST)");
  cmd->add_option("--params", f->params, "a model of N float32 parameters, e.g. 25M");
  cmd->add_option("--compute", f->compute, "compute time per iteration, e.g. 120ms");
  cmd->add_option("--gflops", f->gflops,
                  "compute speed: 3 x forward FLOPs x batch at X GFLOP/s (default 100)");
  cmd->add_option("--workers", f->workers, "workers (default: the hosts the cluster fixes)");
  cmd->add_option("--cluster", f->cluster,
                  "sim:[Nx]BW,LAT or sim:NxG:BW1,LAT1:BW2,LAT2 (required unless --map)");
  cmd->add_option("--net-model", f->netModel,
                  "network model of the predictions: " + model::netModelHelp())
      ->check(kNetModelName);
  cmd->add_option("--bucket-size", f->bucketSize,
                  "as tetrad train: buckets of at most this many bytes (auto: 25 MiB; 0: one per "
                  "tensor, layer-wise)")
      ->capture_default_str();
  cmd->add_option("--on-nonfinite", f->onNonFinite,
                  "as tetrad train: stop and skip pay the guard's one-float all-gather per "
                  "iteration, off does not")
      ->capture_default_str();
  cmd->add_option("--batch-size", f->batch, "samples per worker and iteration")
      ->capture_default_str();
  cmd->add_option("--ps-shards", f->psShards, "K of the ps:K candidates")->capture_default_str();
  cmd->add_option("--codec-cost", f->codecCost,
                  "Codec time: profile:NAME|FILE (shipped: host-cpu, v100), as timing-only runs "
                  "charge it, or none (default: measured here)");
  cmd->add_flag("--no-measure", f->noMeasure,
                "nominal encode/decode throughputs instead of measuring them here");
  cmd->add_option("--repetitions", f->repetitions, "timed rounds per compressor (median)")
      ->capture_default_str();
  cmd->add_option("--momentum", f->momentum,
                  "as tetrad train's --momentum: SSP and ASP have no iteration theory with "
                  "momentum > 0 (docs/convergence.md)")
      ->capture_default_str();
  cmd->add_option("--top", f->top, "print only the N fastest (0: all)")->capture_default_str();
  cmd->add_flag("--explain", f->explain,
                "every method (each all-reduce algorithm too) with the derivation of its time "
                "per iteration and iteration multiplier, and the schedules");
  auto noiseRatio = std::make_shared<std::string>(fmt::format("{:g}", model::kDefaultNoiseRatio));
  cmd->add_option("--noise-ratio", *noiseRatio,
                  "s = sigma^2/(n eps) of the iteration multipliers (docs/convergence.md); with "
                  "--map also 'fit': the s that best matches the sweep's measured multipliers")
      ->capture_default_str();
  cmd->add_option("--results", f->results,
                  "a sweep folder (tetrad run): measured accuracy penalties and agreement");
  auto map = std::make_shared<mapping::AdviseMapFlags>();
  auto mapOn = std::make_shared<bool>(false);
  cmd->add_flag("--map", *mapOn,
                "with --results: the fastest method to target per network (bandwidth x latency "
                "grid), map.csv and pictures in the sweep folder");
  cmd->add_option("--map-bandwidth", map->bandwidths, "the map's bandwidths: MIN:MAX:STEPS")
      ->capture_default_str();
  cmd->add_option("--map-latency", map->latencies, "the map's latencies: MIN:MAX:STEPS")
      ->capture_default_str();
  cmd->add_option("--map-compute", map->computeScales,
                  "the map's compute axis: factors on the runs' compute time per iteration "
                  "(0.1,1,10: a device 10x faster, as trained, 10x slower; R moves by 1/factor)")
      ->capture_default_str();
  cmd->add_option("--jobs,-j", map->jobs,
                  "with --map: replays at a time, each its own process (1: in this process)")
      ->capture_default_str();
  cmd->add_option("--replay-with", map->exe,
                  "with --map: the tetrad binary that replays the runs and keys the replay cache "
                  "(default: this one)");
  cmd->callback([f, map, mapOn, noiseRatio] {
    if (*noiseRatio == "fit") {
      TETRAD_CHECK(*mapOn, InvalidArgument,
                   "--noise-ratio fit fits s to a finished sweep: use it with --results DIR --map");
      map->fitNoiseRatio = true;
    } else {
      f->noiseRatio = parseNumber(*noiseRatio, "--noise-ratio");
      map->noiseRatio = f->noiseRatio;
    }
    if (*mapOn) {
      TETRAD_CHECK(!f->results.empty(), InvalidArgument,
                   "--map draws a finished sweep: give --results DIR");
      map->results = f->results;
      map->netModel = f->netModel;
      map->thisBuild = childProgram();
      mapping::runAdviseMap(*map);
      return;
    }
    TETRAD_CHECK(!f->cluster.empty(), InvalidArgument,
                 "--cluster is required (sim:[Nx]BW,LAT ...), unless --map");
    runAdvise(*f);
  });
});

}  // namespace
}  // namespace tetrad::app
