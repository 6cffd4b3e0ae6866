// Cost of one AD-PSGD step of n floats (4n bytes) on a star (docs/algorithms.md):
//   tick:    2α (9-byte messages to and from rank 0)
//   average: 2α + 2·4n·β (the model to the partner, its served model back;
//            two messages of 4n bytes on different links)
// T ≈ 4α + 8n·β per local step, independent of W and of the degree, and no
// step waits for a slower worker: only the partner's passive task answers.
#include "tetrad/arch/gossip/adpsgd_exchange.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <sstream>

#include "tetrad/arch/gossip/adpsgd_passive.h"
#include "tetrad/arch/gossip/topology_spec.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/compress/registry.h"
#include "tetrad/core/error.h"
#include "tetrad/core/seed.h"

namespace tetrad {
namespace {

constexpr uint64_t kPartnerSeedStream = 0x6100;

class AdpsgdExchange final : public Exchange {
 public:
  AdpsgdExchange(const std::string& topology, const ExchangeContext& context)
      : transport_(*context.workers),
        topology_(parseTopology(topology, context.workerCount, context.seed)),
        partners_(mixSeed(context.seed, kPartnerSeedStream + uint64_t(context.workers->rank()))) {
    TETRAD_CHECK(transport_.carriesPayload(), Unsupported,
                 "--sync asp --arch {} (AD-PSGD) averages real models: it needs messages with "
                 "payloads (not payload-free mode)",
                 spec());
    TETRAD_CHECK(makeCompressor(context.compress)->isIdentity(), InvalidArgument,
                 "--compress {}: AD-PSGD averages full models pairwise; compressed gossip is "
                 "CHOCO-SGD (--sync bsp --gossip choco:GAMMA)",
                 context.compress);
    TETRAD_CHECK(transport_.size() == context.workerCount, InvalidArgument,
                 "--arch {}: {} workers, but the workers' transport has {} ranks", spec(),
                 context.workerCount, transport_.size());
    options_.tags.request = context.tags->reserve(1, "AD-PSGD requests");
    options_.tags.averageReply = context.tags->reserve(1, "AD-PSGD average replies");
    options_.tags.tickReply = context.tags->reserve(1, "AD-PSGD step counter replies");
    checkpointTag_ = context.tags->reserve(2 * kCollectiveTagSpan, "AD-PSGD checkpoints");
    options_.workers = context.workerCount;
    options_.updateLimit = context.updateLimit;
    const int rank = transport_.rank();
    std::vector<bool> seen(size_t(context.workerCount), false);
    for (int step = 0; step < topology_.period(); ++step) {
      for (int peer : topology_.neighbours(rank, step)) seen[size_t(peer)] = true;
    }
    for (int peer = 0; peer < context.workerCount; ++peer) {
      if (seen[size_t(peer)]) options_.senders.push_back(peer);
    }
    for (const ParameterSlot& slot : context.slots) count_ += slot.count;
  }

  std::string spec() const override { return "gossip:" + topology_.spec(); }

  void average(ExchangeStream, size_t, std::span<float>) override {
    TETRAD_FAIL(InvalidArgument, "--sync asp --arch {} (AD-PSGD) averages pairwise in pushPull",
                spec());
  }

  // The workers' models differ: evaluation averages them (x̄).
  bool mixesModels() const override { return true; }
  void mixModels(std::span<float>, int64_t) override {
    TETRAD_FAIL(InvalidArgument, "--sync asp --arch {} (AD-PSGD) averages pairwise in pushPull",
                spec());
  }

  void start(std::span<const float> params) override {
    TETRAD_CHECK(params.size() == count_, InvalidArgument,
                 "AD-PSGD: {} parameters, the slots hold {}", params.size(), count_);
    model_ = std::make_unique<adpsgd::SharedModel>(params);
    server_ = std::make_unique<adpsgd::PassiveServer>(*model_, options_, transport_.rank());
    task_ = transport_.spawn(fmt::format("adpsgd-passive-{}", transport_.rank()),
                             [this] { server_->run(transport_); });
  }

  PullResult pushPull(std::span<const float>, std::span<float> params) override {
    TETRAD_CHECK(model_ && params.size() == count_, InvalidArgument,
                 "AD-PSGD: pushPull before start() or with {} parameters (expected {})",
                 params.size(), count_);
    PullResult result;
    try {
      result = step(params);
      last_ = params;
      clock_ = result.updatesApplied;
    } catch (const Error&) {
      rethrowWithPrefix(
          fmt::format("AD-PSGD step {} of rank {} on '{}': ", steps_, transport_.rank(), spec()));
    }
    ++steps_;
    return result;
  }

  void finish() override {
    if (!task_) return;
    if (!finished_) {
      finished_ = true;
      std::vector<int> targets = options_.senders;  // symmetric graphs: they are our receivers
      if (std::find(targets.begin(), targets.end(), 0) == targets.end()) targets.push_back(0);
      std::byte done[adpsgd::kHeaderBytes];
      adpsgd::writeHeader(done, adpsgd::Kind::kDone, steps_);
      std::vector<RequestPtr> sends;
      for (int peer : targets) sends.push_back(transport_.isend(peer, options_.tags.request, done));
      waitAll(sends);
    }
    TaskPtr task = std::move(task_);
    task->join();
    // Averages served after this worker's last step: into its parameters.
    if (!last_.empty()) model_->boundary(last_, clock_);
  }

  // Checkpoints: this worker's step count, clock, partner stream and
  // staleness histogram, its shared model (served and pending), and on rank
  // 0 the step counter. Taken between barriers: every passive task is idle
  // (each request was answered before its sender reached the cut) and no
  // worker sends a new one before every worker has taken its state.
  ByteBuffer saveState() override {
    TETRAD_CHECK(model_ && server_, InvalidArgument, "AD-PSGD: a checkpoint before start()");
    barrier(transport_, CollectiveOptions{checkpointTag_});
    // Starts non-empty: ByteWriter's first insert into an empty vector draws
    // a false GCC 12 warning (core/fixed_byte_writer.h).
    ByteBuffer bytes(sizeof(steps_));
    std::memcpy(bytes.data(), &steps_, sizeof(steps_));
    bytes.reserve(4096 + 2 * count_ * sizeof(float) + 16 * histogram_.size());
    ByteWriter out(bytes);
    out.put<int64_t>(clock_);
    out.put<int64_t>(server_->count());
    std::ostringstream stream;
    stream << partners_;
    const std::string partners = stream.str();
    out.put<uint64_t>(partners.size());
    out.putBytes(std::as_bytes(std::span(partners)));
    putCounts(out, histogram_);
    model_->save(out);
    barrier(transport_, CollectiveOptions{checkpointTag_ + kCollectiveTagSpan});
    return bytes;
  }

  // Before any worker steps again (the resume's agreement follows).
  void loadState(ConstBytes state) override {
    TETRAD_CHECK(model_ && server_, InvalidArgument, "AD-PSGD: a resume before start()");
    ByteReader in(state);
    const auto steps = in.get<int64_t>("steps");
    const auto clock = in.get<int64_t>("clock");
    const auto count = in.get<int64_t>("step counter");
    const auto partnersLength = in.get<uint64_t>("partner stream length");
    const ConstBytes partnersText = in.getBytes(size_t(partnersLength), "partner stream");
    std::istringstream partnersIn(
        std::string(reinterpret_cast<const char*>(partnersText.data()), partnersText.size()));
    std::mt19937_64 partners;
    partnersIn >> partners;
    TETRAD_CHECK(!partnersIn.fail(), ProtocolError, "AD-PSGD: unreadable partner stream");
    std::map<int64_t, int64_t> histogram = getCounts(in, "staleness histogram");
    model_->load(in);
    in.expectEnd("AD-PSGD state");
    steps_ = steps;
    clock_ = clock;
    partners_ = partners;
    histogram_ = std::move(histogram);
    if (transport_.rank() == 0) server_->restoreCount(count);
  }

  // An elastic resize (docs/reliability.md): a worker the old run had keeps
  // its state (model, pending averages, partner stream, histogram); an added
  // one starts at its parameters (worker 0's) with worker 0's step count and
  // a partner stream of its own. Tick counts are rebased to W' ticks per
  // iteration (rebaseUpdates), so the global iteration continues.
  void loadResized(const ResizedState& state) override {
    const auto rebase = [&](int64_t count) {
      return rebaseUpdates(count, state.oldWorkers, options_.workers);
    };
    if (!state.own.empty()) {
      loadState(state.own);
      clock_ = rebase(clock_);
      model_->setClock(rebase(model_->clock()));
      if (transport_.rank() == 0) server_->restoreCount(rebase(server_->count()));
      return;
    }
    ByteReader in(state.first);
    const auto steps = in.get<int64_t>("steps");
    const auto clock = in.get<int64_t>("clock");
    steps_ = steps;
    clock_ = rebase(clock);
    model_->restart(state.params, clock_);
  }

  ExchangeStats stats() const override {
    ExchangeStats stats;
    stats.stalenessHistogram = histogram_;
    stats.updatesApplied = transport_.rank() == 0 && server_ ? server_->count() : 0;
    return stats;
  }

 private:
  PullResult step(std::span<float> params) {
    PullResult result;
    // 1. The step counter.
    std::byte tick[adpsgd::kHeaderBytes];
    adpsgd::writeHeader(tick, adpsgd::Kind::kTick, steps_);
    RequestPtr send = transport_.isend(0, options_.tags.request, tick);
    std::byte counter[adpsgd::kTickReplyBytes];
    transport_.recv(0, options_.tags.tickReply, counter);
    send->wait();
    ByteReader reader(counter);
    const auto clock = reader.get<int64_t>("step count");
    result.updatesApplied = clock;
    result.stop = reader.get<uint8_t>("stop") != 0;
    // 2. The step boundary.
    model_->boundary(params, clock);
    // 3. Pairwise averaging with one neighbour.
    const std::span<const int> peers = topology_.neighbours(transport_.rank(), steps_);
    if (peers.empty()) return result;  // one worker: plain SGD
    const int partner = peers[size_t(partners_() % peers.size())];
    request_.resize(adpsgd::kHeaderBytes + count_ * sizeof(float));
    adpsgd::writeHeader(request_, adpsgd::Kind::kAverage, clock);
    std::memcpy(request_.data() + adpsgd::kHeaderBytes, params.data(), count_ * sizeof(float));
    reply_.resize(sizeof(int64_t) + count_ * sizeof(float));
    RequestPtr receive = transport_.irecv(partner, options_.tags.averageReply, reply_);
    send = transport_.isend(partner, options_.tags.request, request_);
    send->wait();
    try {
      receive->wait();
    } catch (const TimeoutError& error) {
      TETRAD_FAIL(TimeoutError, "{} (waiting for neighbour rank {})", error.what(), partner);
    }
    int64_t theirClock = 0;
    std::memcpy(&theirClock, reply_.data(), sizeof(theirClock));
    theirs_.resize(count_);
    std::memcpy(theirs_.data(), reply_.data() + sizeof(int64_t), count_ * sizeof(float));
    model_->absorbReply(params, theirs_);  // params are still what was sent
    result.staleness = std::max<int64_t>(0, clock - theirClock);
    ++histogram_[result.staleness];
    return result;
  }

  Transport& transport_;
  Topology topology_;
  std::mt19937_64 partners_;
  adpsgd::PassiveOptions options_;
  size_t count_ = 0;
  std::unique_ptr<adpsgd::SharedModel> model_;
  std::unique_ptr<adpsgd::PassiveServer> server_;
  TaskPtr task_;
  ByteBuffer request_, reply_;
  std::vector<float> theirs_;
  std::map<int64_t, int64_t> histogram_;
  int64_t steps_ = 0, clock_ = 0;
  Tag checkpointTag_ = 0;
  std::span<float> last_;  // the parameters of the last pushPull (finish() absorbs into them)
  bool finished_ = false;
};

}  // namespace

ExchangePtr makeAdpsgdExchange(const std::string& topology, const ExchangeContext& context) {
  return std::make_unique<AdpsgdExchange>(topology, context);
}

}  // namespace tetrad
