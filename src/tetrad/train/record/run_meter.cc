#include "tetrad/train/record/run_meter.h"

#include <algorithm>

#include "tetrad/collectives/allgather.h"
#include "tetrad/core/bytes.h"
#include "tetrad/core/error.h"

namespace tetrad::train {

const char* toString(RankRole role) {
  switch (role) {
    case RankRole::kWorker:
      return "worker";
    case RankRole::kServer:
      return "server";
    case RankRole::kWorkerAndServer:
      return "worker+server";
  }
  return "?";
}

RunMeter::RunMeter(Transport& world)
    : world_(world),
      start_(world.now()),
      wallStart_(Clock::now()),
      sentAtStart_(world.traffic().totalBytesSent()),
      receivedAtStart_(world.traffic().totalBytesReceived()) {}

void RunMeter::addBatch(double meanLoss, double correct, int batchSize) {
  windowLoss_ += meanLoss * batchSize;
  windowCorrect_ += correct;
  windowSamples_ += batchSize;
}

void RunMeter::addStaleness(int64_t staleness) {
  windowStaleness_ += double(staleness);
  windowUpdates_ += 1;
  windowMaxStaleness_ = std::max(windowMaxStaleness_, staleness);
}

void RunMeter::beginEval() {
  evalStart_ = world_.now();
  evalWallStart_ = Clock::now();
  evalSentStart_ = world_.traffic().totalBytesSent();
  evalReceivedStart_ = world_.traffic().totalBytesReceived();
}

void RunMeter::endEval() {
  evalTime_ += world_.now() - evalStart_;
  evalWall_ += std::chrono::duration<double>(Clock::now() - evalWallStart_).count();
  evalSent_ += world_.traffic().totalBytesSent() - evalSentStart_;
  evalReceived_ += world_.traffic().totalBytesReceived() - evalReceivedStart_;
}

void RunMeter::excludeTraffic(uint64_t sent, uint64_t received) {
  evalSent_ += sent;
  evalReceived_ += received;
}

double RunMeter::trainTime() const {
  return world_.now() - start_ - evalTime_;
}

double RunMeter::wallTime() const {
  return std::chrono::duration<double>(Clock::now() - wallStart_).count() - evalWall_;
}

uint64_t RunMeter::bytesSent() const {
  return world_.traffic().totalBytesSent() - sentAtStart_ - evalSent_;
}

uint64_t RunMeter::bytesReceived() const {
  return world_.traffic().totalBytesReceived() - receivedAtStart_ - evalReceived_;
}

double RunMeter::windowLoss() const {
  return windowSamples_ > 0 ? windowLoss_ / windowSamples_ : lastLoss_;
}

double RunMeter::windowAccuracy() const {
  return windowSamples_ > 0 ? windowCorrect_ / windowSamples_ : lastAccuracy_;
}

void RunMeter::addCommSince(double start, double codecAtStart) {
  commTime_ += std::max(0.0, world_.now() - start - (codecTime() - codecAtStart));
}

MetricsRecord RunMeter::record(const char* kind, int64_t iteration, double epoch) {
  MetricsRecord r;
  r.kind = kind;
  r.iteration = iteration;
  r.epoch = epoch;
  r.simTime = trainTime();
  r.wallTime = wallTime();
  r.bytesSent = bytesSent();
  r.bytesReceived = bytesReceived();
  r.computeTime = computeTime_;
  r.commTime = commTime_;
  r.codecTime = codecTime_.load();
  if (std::string_view(kind) == "train") {
    r.loss = windowLoss();
    r.accuracy = windowAccuracy();
    lastLoss_ = r.loss;
    lastAccuracy_ = r.accuracy;
    if (windowUpdates_ > 0) {
      r.meanStaleness = windowStaleness_ / windowUpdates_;
      r.maxStaleness = windowMaxStaleness_;
    }
    windowLoss_ = windowCorrect_ = windowSamples_ = 0;
    windowStaleness_ = windowUpdates_ = 0;
    windowMaxStaleness_ = -1;
  }
  return r;
}

RankTotals RunMeter::totals(RankRole role) const {
  RankTotals t;
  t.role = role;
  t.bytesSent = bytesSent();
  t.bytesReceived = bytesReceived();
  t.computeTime = computeTime_;
  t.commTime = commTime_;
  t.codecTime = codecTime_.load();
  return t;
}

ByteBuffer RunMeter::saveState() const {
  ByteBuffer bytes;
  bytes.reserve(128);
  ByteWriter out(bytes);
  out.put(world_.now());
  out.put(start_);
  out.put(evalTime_);
  out.put(wallTime());
  out.put(bytesSent());
  out.put(bytesReceived());
  out.put(codecTime_.load());
  for (double value : {computeTime_, commTime_, windowLoss_, windowCorrect_, windowSamples_,
                       windowStaleness_, windowUpdates_, lastLoss_, lastAccuracy_}) {
    out.put(value);
  }
  out.put(windowMaxStaleness_);
  return bytes;
}

void RunMeter::loadState(ConstBytes state, bool asNewRank) {
  ByteReader in(state);
  const auto savedNow = in.get<double>("clock");
  const auto savedStart = in.get<double>("start");
  evalTime_ = in.get<double>("evaluation time");
  const auto wall = in.get<double>("wall time");
  const auto sent = in.get<uint64_t>("bytes sent");
  const auto received = in.get<uint64_t>("bytes received");
  const double now = world_.now();
  start_ = now == savedNow ? savedStart : savedStart + (now - savedNow);
  wallStart_ = Clock::now() -
               std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(wall));
  evalWall_ = 0;
  sentAtStart_ = world_.traffic().totalBytesSent() - sent;
  receivedAtStart_ = world_.traffic().totalBytesReceived() - received;
  evalSent_ = evalReceived_ = 0;
  codecTime_ = in.get<double>("codec time");
  for (double* value : {&computeTime_, &commTime_, &windowLoss_, &windowCorrect_, &windowSamples_,
                        &windowStaleness_, &windowUpdates_, &lastLoss_, &lastAccuracy_}) {
    *value = in.get<double>("meter total");
  }
  windowMaxStaleness_ = in.get<int64_t>("window staleness");
  in.expectEnd("meter state");
  if (asNewRank) {
    sentAtStart_ = world_.traffic().totalBytesSent();
    receivedAtStart_ = world_.traffic().totalBytesReceived();
    codecTime_ = 0;
    for (double* value : {&computeTime_, &commTime_, &windowLoss_, &windowCorrect_,
                          &windowSamples_, &windowStaleness_, &windowUpdates_}) {
      *value = 0;
    }
    windowMaxStaleness_ = 0;
  }
}

std::vector<RankTotals> gatherTotals(Transport& world, const RankTotals& mine, Tag tag,
                                     bool withCodec, bool parse) {
  ByteBuffer bytes;
  ByteWriter writer(bytes);
  writer.put(uint8_t(mine.role));
  writer.put(mine.bytesSent);
  writer.put(mine.bytesReceived);
  writer.put(mine.computeTime);
  writer.put(mine.commTime);
  if (withCodec) writer.put(mine.codecTime);
  writer.put(mine.updatesApplied);
  putCounts(writer, mine.stalenessHistogram);
  std::vector<RankTotals> all;
  const std::vector<ByteBuffer> packets = allgatherBytes(world, bytes, CollectiveOptions{tag});
  if (!parse) return all;
  for (const ByteBuffer& theirs : packets) {
    ByteReader reader(theirs);
    RankTotals t;
    const auto role = reader.get<uint8_t>("role");
    TETRAD_CHECK(role <= uint8_t(RankRole::kWorkerAndServer), ProtocolError,
                 "run totals: unknown role {}", role);
    t.role = RankRole(role);
    t.bytesSent = reader.get<uint64_t>("bytes sent");
    t.bytesReceived = reader.get<uint64_t>("bytes received");
    t.computeTime = reader.get<double>("compute time");
    t.commTime = reader.get<double>("communication time");
    if (withCodec) t.codecTime = reader.get<double>("codec time");
    t.updatesApplied = reader.get<int64_t>("updates applied");
    t.stalenessHistogram = getCounts(reader, "staleness histogram");
    reader.expectEnd("run totals");
    all.push_back(std::move(t));
  }
  return all;
}

}  // namespace tetrad::train
