// Gossip exchanges on the Open MPI engine. Run under mpirun -np N (tests/
// gossip/CMakeLists.txt registers a few N). Every rank knows every rank's
// initial vector (sim_helpers.h: a function of the rank), so it replays the
// whole world's D-PSGD averaging locally, with the same rank-ordered sum,
// and checks its own result bit for bit, step by step, on several
// topologies; CHOCO with `none` and γ = 1 must match that replay within
// float rounding, and CHOCO with Top-k must send degree × packet bytes.
// Exits 0 when every check on this rank passed, 1 otherwise.
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim_helpers.h"
#include "tetrad/arch/gossip/choco_gossip.h"
#include "tetrad/arch/gossip/neighbour_mixer.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"

namespace tetrad {
namespace {

constexpr size_t kCount = 1001;
constexpr int kSteps = 4;

// Every rank's vector after one more step of averaging, as mixStep sums.
std::vector<std::vector<float>> replayStep(const Topology& topology, int64_t step,
                                           const std::vector<std::vector<float>>& xs) {
  std::vector<std::vector<float>> next(xs.size(), std::vector<float>(kCount));
  for (int i = 0; i < topology.size(); ++i) {
    std::vector<float> weights;
    std::vector<const float*> sources;
    for (const MixingWeight& m : topology.mixingRow(i, step)) {
      weights.push_back(static_cast<float>(m.weight));
      sources.push_back(xs[m.rank].data());
    }
    detail::weightedSum(weights, sources, next[i]);
  }
  return next;
}

void checkTopology(Transport& transport, const std::string& spec,
                   std::vector<std::string>& failures) {
  const int p = transport.size(), r = transport.rank();
  if (spec == "exp:one-peer" && (p & (p - 1)) != 0) return;
  const Topology topology = parseTopology(spec, p);
  std::vector<std::vector<float>> world;
  for (int i = 0; i < p; ++i) world.push_back(testing::initialVector(i, kCount));
  std::vector<float> x = world[r], y = world[r];
  NeighbourMixer mixer;
  ChocoState state = topology.timeVarying() ? ChocoState() : makeChocoState(topology, r, kCount);
  const CompressorPtr none = makeCompressor("none");
  ChocoOptions choco;
  choco.gossip.tag = 600;
  for (int t = 0; t < kSteps; ++t) {
    world = replayStep(topology, t, world);
    mixer.mix(transport, topology, t, x);
    if (x != world[r])
      failures.push_back(spec + ": D-PSGD differs from the replay, step " + std::to_string(t));
    if (topology.timeVarying()) continue;
    chocoGossipStep(transport, topology, y, *none, state, choco);
    for (size_t k = 0; k < kCount; ++k) {
      if (std::abs(y[k] - world[r][k]) > 2e-6f) {
        failures.push_back(spec + ": CHOCO(none, 1) differs from D-PSGD at step " +
                           std::to_string(t) + " [" + std::to_string(k) + "]");
        break;
      }
    }
  }
  // CHOCO with Top-k: degree × packet bytes per step.
  if (topology.timeVarying()) return;
  const CompressorPtr topk = makeCompressor("topk:0.1");
  CompressorState probe;
  const uint64_t packet = topk->encode(x, probe).size();
  ChocoState sparse = makeChocoState(topology, r, kCount);
  const uint64_t before = transport.traffic().totalBytesSent();
  for (int t = 0; t < 3; ++t) chocoGossipStep(transport, topology, x, *topk, sparse, choco);
  const uint64_t sent = transport.traffic().totalBytesSent() - before;
  const uint64_t expected = 3 * topology.neighbours(r, 0).size() * packet;
  if (sent != expected) {
    failures.push_back(spec + ": CHOCO(topk) sent " + std::to_string(sent) + " bytes, expected " +
                       std::to_string(expected));
  }
}

}  // namespace
}  // namespace tetrad

int main() {
  try {
    tetrad::LaunchOptions options;
    options.cluster = "mpi";
    options.timeoutSeconds = 60;
    std::vector<std::string> failures;
    int rank = 0;
    tetrad::launch(options, [&](tetrad::Transport& transport) {
      rank = transport.rank();
      std::vector<std::string> specs{"ring", "exp", "complete", "exp:one-peer"};
      if (transport.size() % 2 == 0 && transport.size() > 3) specs.push_back("random:3");
      for (const std::string& spec : specs) tetrad::checkTopology(transport, spec, failures);
    });
    for (const std::string& failure : failures) {
      std::fprintf(stderr, "rank %d: FAIL %s\n", rank, failure.c_str());
    }
    if (failures.empty()) std::printf("rank %d: all gossip checks passed\n", rank);
    return failures.empty() ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    std::fflush(stderr);
    tetrad::abortAllRanks(1);
    return 1;
  }
}
