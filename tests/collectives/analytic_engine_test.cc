// The analytic engine (transport/analytic_network.h, collectives/analytic_
// collective.h): the message replay on hand-made schedules, and every
// collective and algorithm on the analytic engine against the same call on
// SimGrid's message-level CM02 (no cross traffic) — each rank's finish time
// within 1% and its per-peer traffic equal — on stars of 2..64 ranks and a
// two-level cluster, plus the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "tetrad/collectives/allgather.h"
#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/analytic_replay.h"
#include "tetrad/collectives/barrier.h"
#include "tetrad/collectives/broadcast.h"
#include "tetrad/collectives/reduce_scatter.h"
#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/transport/prefix_transport.h"

namespace tetrad {
namespace {

using detail::RecordedOp;
using Kind = RecordedOp::Kind;

RecordedOp post(Kind kind, int peer, int request, uint64_t bytes, Tag tag = 7) {
  RecordedOp op;
  op.kind = kind;
  op.peer = peer;
  op.tag = tag;
  op.request = request;
  op.bytes = bytes;
  return op;
}
RecordedOp waitFor(int request) {
  RecordedOp op;
  op.kind = Kind::kWait;
  op.request = request;
  return op;
}
RecordedOp delay(double seconds) {
  RecordedOp op;
  op.kind = Kind::kDelay;
  op.seconds = seconds;
  return op;
}

// 1 s per message plus 1 s per byte.
double unitSeconds(int, int, uint64_t bytes) {
  return 1.0 + double(bytes);
}

TEST(AnalyticReplay, ATransferStartsWhenBothSidesHavePosted) {
  // Rank 0 sends 2 bytes at once; rank 1 computes 5 s first, then receives:
  // the transfer runs from 5 to 8, and both ranks finish at 8.
  std::vector<std::vector<RecordedOp>> ops(2);
  ops[0] = {post(Kind::kSend, 1, 0, 2), waitFor(0)};
  ops[1] = {delay(5), post(Kind::kRecv, 0, 0, 2), waitFor(0)};
  const detail::ReplayResult r = detail::replayMessages(ops, unitSeconds);
  EXPECT_DOUBLE_EQ(r.finish[0], 8);
  EXPECT_DOUBLE_EQ(r.finish[1], 8);
  ASSERT_EQ(r.traffic.size(), 2u);
  EXPECT_EQ(r.traffic[0].peer, 1);
  EXPECT_EQ(r.traffic[0].bytesSent, 2u);
  EXPECT_EQ(r.traffic[0].messagesSent, 1u);
  EXPECT_EQ(r.traffic[1].bytesReceived, 2u);
}

TEST(AnalyticReplay, MessagesOfOneChannelMatchInOrderAndExchangesOverlap) {
  // Both ranks post a send and a receive, then wait: the two transfers run
  // at the same time (no contention), 1 + 3 s each; a second message of 1
  // byte on the same channel follows at once.
  std::vector<std::vector<RecordedOp>> ops(2);
  for (int r = 0; r < 2; ++r) {
    ops[r] = {
        post(Kind::kSend, 1 - r, 0, 3), post(Kind::kRecv, 1 - r, 1, 3), waitFor(1), waitFor(0),
        post(Kind::kSend, 1 - r, 2, 1), post(Kind::kRecv, 1 - r, 3, 1), waitFor(2), waitFor(3)};
  }
  const detail::ReplayResult r = detail::replayMessages(ops, unitSeconds);
  EXPECT_DOUBLE_EQ(r.finish[0], 6);
  EXPECT_DOUBLE_EQ(r.finish[1], 6);
  EXPECT_EQ(r.traffic[0].messagesSent, 2u);
  EXPECT_EQ(r.traffic[0].bytesSent, 4u);
}

TEST(AnalyticReplay, SizeMismatchAndUnmatchedMessagesAreProtocolErrors) {
  std::vector<std::vector<RecordedOp>> mismatch(2);
  mismatch[0] = {post(Kind::kSend, 1, 0, 4), waitFor(0)};
  mismatch[1] = {post(Kind::kRecv, 0, 0, 8), waitFor(0)};
  EXPECT_THROW(detail::replayMessages(mismatch, unitSeconds), ProtocolError);
  std::vector<std::vector<RecordedOp>> unmatched(2);
  unmatched[0] = {post(Kind::kRecv, 1, 0, 4), waitFor(0)};
  unmatched[1] = {};
  try {
    detail::replayMessages(unmatched, unitSeconds);
    FAIL() << "an unmatched receive must not finish";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("receive from rank 1"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// One collective on every rank; each rank's finish time and per-peer traffic.
struct Outcome {
  std::vector<double> finish;
  std::vector<std::vector<uint64_t>> sentTo, messagesTo, receivedFrom;
};

using Call = std::function<void(Transport&)>;

Outcome runCall(const std::string& cluster, int p, bool analytic, const Call& call) {
  LaunchOptions options;
  options.cluster = cluster;
  options.workers = p;
  options.payloadFree = true;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.analyticCollectives = analytic;
  Outcome out;
  out.finish.resize(size_t(p));
  out.sentTo.assign(size_t(p), std::vector<uint64_t>(size_t(p)));
  out.messagesTo = out.receivedFrom = out.sentTo;
  launch(options, [&](Transport& t) {
    // A first call with staggered arrivals, then the timed one, which every
    // rank starts at 1 s (the analytic engine starts a collective at the
    // latest arrival; the simulator lets early ranks begin): a repeated
    // call comes from the replay cache.
    t.sleepFor(1e-6 * t.rank());
    call(t);
    ASSERT_LT(t.now(), 1.0);
    t.sleepFor(1.0 - t.now());
    const double start = t.now();
    call(t);
    const size_t r = size_t(t.rank());
    out.finish[r] = t.now() - start;
    for (int q = 0; q < p; ++q) {
      out.sentTo[r][size_t(q)] = t.traffic().bytesSentTo(q);
      out.messagesTo[r][size_t(q)] = t.traffic().messagesSentTo(q);
      out.receivedFrom[r][size_t(q)] = t.traffic().bytesReceivedFrom(q);
    }
  });
  return out;
}

// The latest finish within 1%, every rank's traffic equal.
void expectAgreement(const std::string& what, const std::string& cluster, int p, const Call& call) {
  const Outcome sim = runCall(cluster, p, false, call);
  const Outcome analytic = runCall(cluster, p, true, call);
  const double simTime = *std::max_element(sim.finish.begin(), sim.finish.end());
  const double analyticTime = *std::max_element(analytic.finish.begin(), analytic.finish.end());
  EXPECT_NEAR(analyticTime / simTime, 1.0, 0.01)
      << what << " on " << p << " ranks of " << cluster << ": SimGrid " << simTime
      << " s, analytic " << analyticTime << " s";
  EXPECT_EQ(analytic.sentTo, sim.sentTo) << what << " p=" << p << ": bytes sent per peer";
  EXPECT_EQ(analytic.messagesTo, sim.messagesTo) << what << " p=" << p << ": messages per peer";
  EXPECT_EQ(analytic.receivedFrom, sim.receivedFrom) << what << " p=" << p;
}

class AnalyticEngine : public ::testing::TestWithParam<int> {};

TEST_P(AnalyticEngine, EveryAllreduceMatchesSimGridCM02) {
  const int p = GetParam();
  for (AllreduceAlgorithm algorithm :
       {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kRecursiveDoubling,
        AllreduceAlgorithm::kRabenseifner, AllreduceAlgorithm::kTree}) {
    for (size_t n : {size_t(3), size_t(70001), size_t(1) << 20}) {
      std::vector<float> shared(n);
      expectAgreement(toString(algorithm) + " n=" + std::to_string(n), "sim:10Gbps,25us", p,
                      [&](Transport& t) {
                        allreduce(t, shared, {algorithm, ReduceOp::kAverage, 100});
                      });
    }
  }
  std::vector<float> shared(100000);
  expectAgreement("ring fp16 wire", "sim:1Gbps,50us", p, [&](Transport& t) {
    allreduce(t, shared, {AllreduceAlgorithm::kRing, ReduceOp::kSum, 100, WirePrecision::kFloat16});
  });
}

TEST_P(AnalyticEngine, AllgatherBroadcastReduceScatterBarrierMatchSimGridCM02) {
  const int p = GetParam();
  for (AllgatherAlgorithm algorithm :
       {AllgatherAlgorithm::kRing, AllgatherAlgorithm::kRecursiveDoubling}) {
    for (size_t n : {size_t(1), size_t(5000)}) {
      std::vector<float> mine(n), out(n * size_t(p));
      expectAgreement("all-gather " + toString(algorithm), "sim:10Gbps,25us", p, [&](Transport& t) {
        allgather(t, mine, out, {algorithm, 200});
      });
    }
  }
  for (BroadcastAlgorithm algorithm :
       {BroadcastAlgorithm::kBinomial, BroadcastAlgorithm::kScatterAllgather}) {
    std::vector<float> data(300000);
    expectAgreement("broadcast " + toString(algorithm), "sim:10Gbps,25us", p, [&](Transport& t) {
      broadcast(t, data, {algorithm, p - 1, 300});
    });
  }
  for (ReduceScatterAlgorithm algorithm :
       {ReduceScatterAlgorithm::kRing, ReduceScatterAlgorithm::kRecursiveHalving}) {
    std::vector<float> data(200003);
    expectAgreement("reduce-scatter " + toString(algorithm), "sim:10Gbps,25us", p,
                    [&](Transport& t) {
                      reduceScatter(t, data, {algorithm, ReduceOp::kSum, 400});
                    });
  }
  expectAgreement("barrier", "sim:10Gbps,25us", p,
                  [&](Transport& t) { barrier(t, CollectiveOptions{500}); });
  // Packets of different sizes (a sign compressor's majority vote).
  expectAgreement("byte all-gather", "sim:1Gbps,50us", p, [&](Transport& t) {
    ByteBuffer mine(size_t(1000 + 997 * t.rank()));
    allgatherBytes(t, mine, CollectiveOptions{600});
  });
}

INSTANTIATE_TEST_SUITE_P(Stars, AnalyticEngine, ::testing::Values(2, 7, 16, 33));

TEST(AnalyticEngineTwoLevel, RingAndHierarchicalMatchSimGridCM02) {
  const std::string cluster = "sim:4x4:100Gbps,2us:10Gbps,25us";
  for (AllreduceAlgorithm algorithm :
       {AllreduceAlgorithm::kRing, AllreduceAlgorithm::kHierarchical}) {
    std::vector<float> shared(1 << 18);
    expectAgreement(toString(algorithm) + " two-level", cluster, 16, [&](Transport& t) {
      allreduce(t, shared, {algorithm, ReduceOp::kSum, 100});
    });
  }
}

TEST(AnalyticEngineScale, RingOn1024RanksRepeatsFromTheCache) {
  // 2.1 million messages per call: the first call is replayed, the next
  // ninety-nine come from the cache; each is 2(p-1)(α + n/p·β).
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 1024;
  options.payloadFree = true;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.analyticCollectives = true;
  const size_t n = 272474;  // resnet20's parameters
  std::vector<float> shared(n);
  std::vector<double> finish(1024);
  launch(options, [&](Transport& t) {
    for (int i = 0; i < 100; ++i) allreduce(t, shared, {AllreduceAlgorithm::kRing});
    finish[size_t(t.rank())] = t.now();
  });
  const double block = double((n + 1023) / 1024) * 4;
  const double perCall = 2 * 1023 * (25e-6 + block / 1.25e9);
  EXPECT_NEAR(finish[0] / (100 * perCall), 1.0, 1e-9);
}

TEST(AnalyticEngineRefusals, WhatItWouldTimeWrongIsRefused) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 4;
  options.payloadFree = true;
  options.analyticCollectives = true;
  const auto nothing = [](Transport&) {};
  // SimGrid's default model (LV08) shares bandwidth: refused.
  EXPECT_THROW(launch(options, nothing), InvalidArgument);
  options.simConfig = {"network/model:CM02"};  // cross traffic on
  EXPECT_THROW(launch(options, nothing), InvalidArgument);
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.payloadFree = false;
  EXPECT_THROW(launch(options, nothing), InvalidArgument);
  options.payloadFree = true;
  options.cluster = "sim:fattree:2;4,4;1,2;1,2:10Gbps,25us";
  options.workers = 0;
  EXPECT_THROW(launch(options, nothing), InvalidArgument);
}

TEST(AnalyticEngineRefusals, RanksThatDisagreeAreAProtocolError) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 3;
  options.payloadFree = true;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.analyticCollectives = true;
  try {
    launch(options, [](Transport& t) {
      std::vector<float> data(t.rank() == 2 ? 10 : 20);
      allreduce(t, data, {AllreduceAlgorithm::kRing});
    });
    FAIL() << "different lengths must not pass";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("rank 2"), std::string::npos) << e.what();
  }
}

TEST(AnalyticEngineRefusals, AMissingRankTimesOut) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 3;
  options.payloadFree = true;
  options.timeoutSeconds = 5;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.analyticCollectives = true;
  EXPECT_THROW(launch(options,
                      [](Transport& t) {
                        std::vector<float> data(10);
                        if (t.rank() != 1) allreduce(t, data, {AllreduceAlgorithm::kRing});
                      }),
               TimeoutError);
}

TEST(AnalyticEngine, ViewsOfTheWorldMeetAsTheirOwnGroupAndCountOnTheParent) {
  LaunchOptions options;
  options.cluster = "sim:10Gbps,25us";
  options.workers = 5;
  options.payloadFree = true;
  options.simConfig = {"network/model:CM02", "network/crosstraffic:0"};
  options.analyticCollectives = true;
  std::vector<uint64_t> parentBytes(5), viewBytes(5);
  launch(options, [&](Transport& t) {
    if (t.rank() >= 4) return;  // a server: not in the workers' view
    PrefixTransport workers(t, 4);
    std::vector<float> data(1000);
    allreduce(workers, data, {AllreduceAlgorithm::kRing});
    parentBytes[size_t(t.rank())] = t.traffic().totalBytesSent();
    viewBytes[size_t(t.rank())] = workers.traffic().totalBytesSent();
  });
  for (int r = 0; r < 4; ++r) {
    EXPECT_EQ(viewBytes[size_t(r)], 2u * 3u * 250u * 4u) << "rank " << r;
    EXPECT_EQ(parentBytes[size_t(r)], viewBytes[size_t(r)]) << "rank " << r;
  }
}

}  // namespace
}  // namespace tetrad
