// Cost of one average() of a bucket of n floats on p workers: the
// aggregation of compress/aggregate.cc — ring all-reduce without compression:
// 2(p-1)α + 2(p-1)/p·4n·β; a gather compressor with b-byte packets:
// (p-1)α + (p-1)·b·β.
#include "tetrad/arch/allreduce/allreduce_exchange.h"

#include <fmt/format.h>

#include <limits>

#include "tetrad/compress/aggregate.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"
#include "tetrad/transport/diagnostics.h"

namespace tetrad {
namespace {

constexpr uint64_t kCompressorSeedStream = 0x5000;

class AllreduceExchange final : public Exchange {
 public:
  AllreduceExchange(AllreduceAlgorithm algorithm, const ExchangeContext& context)
      : algorithm_(algorithm),
        selector_(context.allreduceSelector),
        codec_(context.codec),
        transport_(*context.workers),
        compressor_(makeCompressor(context.compress)),
        buckets_(context.buckets) {
    TETRAD_CHECK(algorithm != AllreduceAlgorithm::kAuto || selector_ != nullptr, InvalidArgument,
                 "rank {}: allreduce:auto needs the run's network (ExchangeContext::"
                 "allreduceSelector)",
                 transport_.rank());
    const Tag streams = Tag(kExchangeStreams) * Tag(buckets_.size());
    firstTag_ = context.tags->reserve(std::max<Tag>(1, streams) * kAggregateTagSpan,
                                      "the all-reduce exchange");
    for (int stream = 0; stream < kExchangeStreams; ++stream) {
      for (size_t b = 0; b < buckets_.size(); ++b) {
        CompressorState state;
        state.shape = buckets_[b].shape;
        // A fused bucket: its tensors' shapes (batched PowerSGD's matrices).
        if (buckets_[b].tensorShapes.size() > 1) state.layout = buckets_[b].tensorShapes;
        // Shared by every rank (Random-k indices, PowerSGD's Q); one stream
        // per (stream, bucket).
        state.seed = mixSeed(context.seed, kCompressorSeedStream + (uint64_t(stream) << 32) + b);
        state.rank = transport_.rank();
        states_[stream].push_back(std::move(state));
      }
    }
  }

  std::string spec() const override { return "allreduce:" + toString(algorithm_); }

  void average(ExchangeStream stream, size_t bucket, std::span<float> values) override {
    const int s = int(stream);
    TETRAD_CHECK(bucket < buckets_.size() && values.size() == buckets_[bucket].count,
                 InvalidArgument, "rank {}: average of bucket {} with {} floats (plan: {} buckets)",
                 transport_.rank(), bucket, values.size(), buckets_.size());
    AggregateOptions options;
    options.op = ReduceOp::kAverage;
    options.allreduce = algorithm_;
    options.selector = selector_;
    options.codec = codec_;
    if (stream == ExchangeStream::kGradients && rider_ != nullptr) {
      scanForRider(bucket, values);
      if (++riderScanned_ == buckets_.size()) {
        // A summable aggregation carries the word as the bucket's own
        // non-finiteness (compress/guard_rider.h): a rank with something to
        // report makes this last bucket non-finite; the run stops anyway.
        if (rider_->anyReported() && compressor_->aggregation() == Aggregation::kSummable &&
            !values.empty()) {
          values[0] = std::numeric_limits<float>::quiet_NaN();
        }
        options.rider = rider_;
        rider_ = nullptr;
      }
    }
    options.tag = firstTag_ + Tag(s * buckets_.size() + bucket) * kAggregateTagSpan;
    // Stall reports name the bucket and its tensors (transport/diagnostics.h).
    const ActivityLabel label(transport_, options.tag, kAggregateTagSpan,
                              fmt::format("{} bucket {} ({})", s == 0 ? "gradient" : "model-change",
                                          bucket, buckets_[bucket].names));
    aggregate(transport_, *compressor_, values, states_[s][bucket], options);
  }

  bool armRider(GuardRider* rider, bool withStopRequests) override {
    // Custom protocols (majority vote, gTop-k, PowerSGD) have no place for
    // it; a summable one carries non-finiteness only, not a stop request.
    const Aggregation aggregation = compressor_->aggregation();
    if (aggregation == Aggregation::kCustom || buckets_.empty()) return false;
    if (aggregation == Aggregation::kSummable && withStopRequests) return false;
    rider_ = rider;
    riderScanned_ = 0;
    return true;
  }

  ByteBuffer saveState() override { return saveCompressorStates(states_); }
  void loadState(ConstBytes state) override {
    loadCompressorStates(state, states_, fmt::format("rank {}: {}", transport_.rank(), spec()));
  }
  void loadResized(const ResizedState& state) override {
    loadResizedCompressorStates(state.own, state.first, states_, transport_.rank(),
                                fmt::format("rank {}: {}", transport_.rank(), spec()));
  }

 private:
  // This rank's first non-finite element of the gradient, by flat offset.
  void scanForRider(size_t bucket, std::span<const float> values) {
    bool isInf = false;
    const int64_t bad = scanNonFinite(values, &isInf);
    if (bad < 0) return;
    const int64_t offset = int64_t(buckets_[bucket].offset) + bad;
    if (rider_->firstBad < 0 || offset < rider_->firstBad) {
      rider_->firstBad = offset;
      rider_->firstBadIsInf = isInf;
    }
    rider_->word = 1.0f;
  }

  AllreduceAlgorithm algorithm_;
  const AllreduceSelector* selector_;
  CodecClock* codec_;
  Transport& transport_;
  CompressorPtr compressor_;
  std::vector<BucketRange> buckets_;
  std::vector<CompressorState> states_[kExchangeStreams];
  Tag firstTag_ = 0;
  GuardRider* rider_ = nullptr;  // armed for this iteration's gradients
  size_t riderScanned_ = 0;      // gradient buckets averaged since armed
};

}  // namespace

ExchangePtr makeAllreduceExchange(AllreduceAlgorithm algorithm, const ExchangeContext& context) {
  return std::make_unique<AllreduceExchange>(algorithm, context);
}

}  // namespace tetrad
