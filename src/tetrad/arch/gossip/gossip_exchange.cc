// Cost of one mixModels() of n floats (b wire bytes) on a topology of
// maximum degree d: the d sends leave at once over the rank's link,
// α + d·b·β (gossip_cost.h; docs/gossip.md) — independent of the number
// of workers, unlike ring all-reduce's 2(p-1)α.
#include "tetrad/arch/gossip/gossip_exchange.h"

#include <charconv>
#include <cmath>

#include "tetrad/arch/gossip/choco_gossip.h"
#include "tetrad/arch/gossip/neighbour_mixer.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/collectives/call_check.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"

namespace tetrad {
namespace {

class GossipExchange final : public Exchange {
 public:
  GossipExchange(const std::string& topology, const ExchangeContext& context)
      : transport_(*context.workers),
        topology_(parseTopology(topology, context.workerCount, context.seed)),
        gamma_(parseGossipMode(context.gossip)),
        compressor_(makeCompressor(context.compress)),
        codec_(context.codec) {
    options_.tag = context.tags->reserve(kGossipTagSpan, "gossip");
    callCheckTag_ = context.tags->reserve(kCollectiveTagSpan, "gossip call checks");
    TETRAD_CHECK(gamma_ > 0 || compressor_->isIdentity(), InvalidArgument,
                 "--arch gossip:{} with --compress {}: plain D-PSGD with a lossy compressor "
                 "does not converge; use --gossip choco:GAMMA",
                 topology, compressor_->spec());
    if (gamma_ > 0) {
      size_t count = 0;
      for (const ParameterSlot& slot : context.slots) count += slot.count;
      choco_ = makeChocoState(topology_, transport_.rank(), count, mixSeed(context.seed, 0x6000));
    }
  }

  std::string spec() const override { return "gossip:" + topology_.spec(); }

  void average(ExchangeStream, size_t, std::span<float>) override {
    TETRAD_FAIL(InvalidArgument, "--arch {} mixes models with neighbours; it has no average",
                spec());
  }

  bool mixesModels() const override { return true; }

  // D-PSGD keeps nothing between steps (the mixer's buffers are scratch);
  // CHOCO-SGD its public copies, compressor state and step count.
  ByteBuffer saveState() override { return gamma_ > 0 ? choco_.serialize() : ByteBuffer{}; }
  void loadState(ConstBytes state) override {
    if (gamma_ <= 0) {
      TETRAD_CHECK(state.empty(), InvalidArgument,
                   "rank {}: --arch {}: the checkpoint holds CHOCO state, this run is D-PSGD",
                   transport_.rank(), spec());
      return;
    }
    ChocoState loaded = ChocoState::deserialize(state);
    TETRAD_CHECK(loaded.rank == choco_.rank && loaded.ranks == choco_.ranks &&
                     loaded.count() == choco_.count(),
                 InvalidArgument,
                 "rank {}: --arch {}: the checkpoint's CHOCO state is of rank {} with {} "
                 "neighbours and {} floats, this run's of rank {} with {} and {}",
                 transport_.rank(), spec(), loaded.rank, loaded.ranks.size(), loaded.count(),
                 choco_.rank, choco_.ranks.size(), choco_.count());
    choco_ = std::move(loaded);
  }

  void mixModels(std::span<float> params, int64_t step) override {
    // With --check-collectives the workers first agree on the call.
    const CollectiveScope scope(
        transport_, {"model mix", spec(), params.size(), gamma_ > 0 ? compressor_->spec() : "dpsgd",
                     step, callCheckTag_});
    if (gamma_ > 0) {
      ChocoOptions options;
      options.gamma = gamma_;
      options.gossip = options_;
      options.codec = codec_;
      chocoGossipStep(transport_, topology_, params, *compressor_, choco_, options);
    } else {
      mixer_.mix(transport_, topology_, step, params, options_);
    }
  }

 private:
  Transport& transport_;
  Topology topology_;
  double gamma_;
  CompressorPtr compressor_;
  GossipOptions options_;
  CodecClock* codec_ = nullptr;  // CHOCO's encode and decodes (codec_clock.h)
  NeighbourMixer mixer_;
  ChocoState choco_;
  Tag callCheckTag_ = 0;
};

}  // namespace

double parseGossipMode(const std::string& mode) {
  if (mode == "dpsgd") return 0;
  if (mode.starts_with("choco:")) {
    const std::string_view text = std::string_view(mode).substr(6);
    double gamma = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), gamma);
    TETRAD_CHECK(ec == std::errc() && end == text.data() + text.size() && std::isfinite(gamma) &&
                     gamma > 0 && gamma <= 1,
                 InvalidArgument,
                 "invalid --gossip '{}': the consensus step GAMMA must be in (0, 1]", mode);
    return gamma;
  }
  TETRAD_FAIL(InvalidArgument, "invalid --gossip '{}': use dpsgd or choco:GAMMA (e.g. choco:0.1)",
              mode);
}

ExchangePtr makeGossipExchange(const std::string& topology, const ExchangeContext& context) {
  return std::make_unique<GossipExchange>(topology, context);
}

}  // namespace tetrad
