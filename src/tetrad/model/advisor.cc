// The advisor's candidates, ranking and printed lines (advisor.h).
#include "tetrad/model/advisor.h"

#include <fmt/ranges.h>

#include <algorithm>

#include "tetrad/core/error.h"

namespace tetrad::model {

std::vector<Method> candidateMethods(int psShards) {
  TETRAD_CHECK(psShards >= 1, InvalidArgument, "--ps-shards must be >= 1, got {}", psShards);
  const std::vector<std::string> compressors = {
      "none",      "fp16",       "qsgd:16", "terngrad", "topk:0.01,ef", "randomk:0.01,ef",
      "dgc:0.001", "powersgd:2", "sign",    "efsign"};
  std::vector<Method> methods;
  for (const char* algorithm : {"auto", "ring", "rabenseifner", "tree", "hierarchical"}) {
    for (const std::string& compress : compressors) {
      methods.push_back({"bsp", std::string("allreduce:") + algorithm, compress});
    }
  }
  const std::string ps = fmt::format("ps:{}", psShards);
  for (const std::string& arch : {ps, std::string("ps:colocated")}) {
    for (const char* compress : {"none", "fp16", "topk:0.01,ef"}) {
      methods.push_back({"bsp", arch, compress});
    }
  }
  methods.push_back({"local:4", "allreduce:auto", "none"});
  methods.push_back({"local:16", "allreduce:auto", "none"});
  methods.push_back({"ssp:4", ps, "none"});
  methods.push_back({"asp", ps, "none"});
  methods.push_back({"bsp", "gossip:ring", "none"});
  methods.push_back({"bsp", "gossip:exp", "none"});
  return methods;
}

Ranking rankMethods(const std::vector<Method>& methods, const ModelContext& context) {
  Ranking ranking;
  for (const Method& method : methods) {
    try {
      ranking.ranked.push_back(predictMethod(method, context));
    } catch (const InvalidArgument& e) {
      ranking.skipped.push_back(fmt::format("{}: {}", method.label(), e.what()));
    } catch (const Unsupported& e) {
      ranking.skipped.push_back(fmt::format("{}: {}", method.label(), e.what()));
    }
  }
  std::stable_sort(ranking.ranked.begin(), ranking.ranked.end(),
                   [](const Prediction& a, const Prediction& b) { return a.seconds < b.seconds; });
  return ranking;
}

namespace {

// "  [! a; b]" with the measured accuracy penalty, or "".
std::string flagText(const Prediction& p, const PenaltyTable& penalties) {
  std::vector<std::string> flags = p.flags;
  auto it = penalties.find(p.method.label());
  if (it != penalties.end()) {
    flags.push_back(fmt::format("measured accuracy {:+.4f} vs baseline ({} cluster{})",
                                it->second.mean, it->second.clusters,
                                it->second.clusters == 1 ? "" : "s"));
  }
  if (flags.empty()) return "";
  return fmt::format("  [! {}]", fmt::join(flags, "; "));
}

}  // namespace

std::vector<std::string> formatRanking(const Ranking& ranking, const PenaltyTable& penalties) {
  std::vector<std::string> lines;
  size_t width = 0;
  for (const Prediction& p : ranking.ranked) width = std::max(width, p.method.label().size());
  for (size_t i = 0; i < ranking.ranked.size(); ++i) {
    const Prediction& p = ranking.ranked[i];
    lines.push_back(fmt::format("{:>3}  {:>11.3f} ms  {:<{}}  {}{}", i + 1, p.seconds * 1e3,
                                p.method.label(), width, p.derivation, flagText(p, penalties)));
  }
  return lines;
}

TargetRanking rankByTimeToTarget(const Ranking& ranking, int workers, double noiseRatio,
                                 double momentum, const CompressionErrorFunction& error) {
  TargetRanking target;
  target.skipped = ranking.skipped;
  for (const Prediction& p : ranking.ranked) {
    TargetPrediction t{p, predictIterations(p.method, workers, noiseRatio, momentum, error),
                       p.seconds};
    if (t.iterations.covered) {
      t.seconds = p.seconds * t.iterations.multiplier;
      target.covered.push_back(std::move(t));
    } else {
      target.uncovered.push_back(std::move(t));
    }
  }
  auto faster = [](const TargetPrediction& a, const TargetPrediction& b) {
    return a.seconds < b.seconds;
  };
  std::stable_sort(target.covered.begin(), target.covered.end(), faster);
  std::stable_sort(target.uncovered.begin(), target.uncovered.end(), faster);
  return target;
}

std::vector<std::string> formatTargetRanking(const TargetRanking& ranking,
                                             const PenaltyTable& penalties) {
  size_t width = 0;
  for (const auto* part : {&ranking.covered, &ranking.uncovered}) {
    for (const TargetPrediction& t : *part) {
      width = std::max(width, t.perIteration.method.label().size());
    }
  }
  std::vector<std::string> lines;
  size_t rank = 0;
  auto add = [&](const TargetPrediction& t) {
    const Prediction& p = t.perIteration;
    const std::string multiplier =
        t.iterations.covered ? fmt::format("{:.5g}", t.iterations.multiplier) : "?";
    std::string derivation = p.derivation;
    if (derivation.starts_with("= ")) derivation = derivation.substr(2);
    lines.push_back(
        fmt::format("{:>3}  {:>11.3f} ms  {:<{}}  = {:.3f} ms/iter × {} iterations "
                    "[{}]; per iteration {}{}",
                    ++rank, t.seconds * 1e3, p.method.label(), width, p.seconds * 1e3, multiplier,
                    t.iterations.text, derivation, flagText(p, penalties)));
  };
  for (const TargetPrediction& t : ranking.covered) add(t);
  if (!ranking.uncovered.empty()) lines.push_back(kNoTheoryHeader);
  for (const TargetPrediction& t : ranking.uncovered) add(t);
  return lines;
}

}  // namespace tetrad::model
