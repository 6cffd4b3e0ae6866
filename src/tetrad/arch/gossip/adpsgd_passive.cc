// Cost of serving one averaging request of n floats: receive 4n bytes, copy
// the served model into the reply (4n bytes out), 3n float operations under
// the lock; a tick (rank 0) is 1 + 8 bytes in and 9 out.
#include "tetrad/arch/gossip/adpsgd_passive.h"

#include <algorithm>
#include <cstring>

#include "tetrad/core/error.h"

namespace tetrad::adpsgd {

void writeHeader(std::span<std::byte> out, Kind kind, int64_t field) {
  TETRAD_CHECK(out.size() >= kHeaderBytes, InvalidArgument, "AD-PSGD header: {} bytes", out.size());
  out[0] = std::byte(kind);
  std::memcpy(out.data() + 1, &field, sizeof(field));
}

SharedModel::SharedModel(std::span<const float> initial)
    : served_(initial.begin(), initial.end()), pending_(initial.size(), 0.0f) {}

void SharedModel::boundary(std::span<float> x, int64_t clock) {
  std::lock_guard lock(mutex_);
  for (size_t k = 0; k < x.size(); ++k) {
    x[k] += pending_[k];
    pending_[k] = 0.0f;
    served_[k] = x[k];
  }
  clock_ = clock;
}

void SharedModel::absorbReply(std::span<float> x, std::span<const float> theirs) {
  std::lock_guard lock(mutex_);
  for (size_t k = 0; k < x.size(); ++k) {
    const float d = 0.5f * (theirs[k] - x[k]);
    x[k] += d;
    served_[k] += d;
  }
}

void SharedModel::serve(std::span<const float> incoming, std::span<std::byte> reply) {
  std::lock_guard lock(mutex_);
  std::memcpy(reply.data(), &clock_, sizeof(clock_));
  std::memcpy(reply.data() + sizeof(clock_), served_.data(), served_.size() * sizeof(float));
  for (size_t k = 0; k < served_.size(); ++k) {
    const float d = 0.5f * (incoming[k] - served_[k]);
    served_[k] += d;
    pending_[k] += d;
  }
}

void SharedModel::save(ByteWriter& out) const {
  std::lock_guard lock(mutex_);
  out.put<int64_t>(clock_);
  out.put<uint64_t>(served_.size());
  out.putBytes(std::as_bytes(std::span(served_)));
  out.putBytes(std::as_bytes(std::span(pending_)));
}

void SharedModel::load(ByteReader& in) {
  const auto clock = in.get<int64_t>("served clock");
  const auto count = in.get<uint64_t>("served size");
  std::lock_guard lock(mutex_);
  TETRAD_CHECK(count == served_.size(), ProtocolError,
               "the served model of the checkpoint has {} floats, this one {}", count,
               served_.size());
  const ConstBytes served = in.getBytes(served_.size() * sizeof(float), "served model");
  const ConstBytes pending = in.getBytes(pending_.size() * sizeof(float), "pending averages");
  std::memcpy(served_.data(), served.data(), served.size());
  std::memcpy(pending_.data(), pending.data(), pending.size());
  clock_ = clock;
}

int64_t SharedModel::clock() const {
  std::lock_guard lock(mutex_);
  return clock_;
}

void SharedModel::setClock(int64_t clock) {
  std::lock_guard lock(mutex_);
  clock_ = clock;
}

void SharedModel::restart(std::span<const float> x, int64_t clock) {
  std::lock_guard lock(mutex_);
  TETRAD_CHECK(x.size() == served_.size(), InvalidArgument,
               "AD-PSGD restart with {} parameters, the model has {}", x.size(), served_.size());
  std::copy(x.begin(), x.end(), served_.begin());
  std::fill(pending_.begin(), pending_.end(), 0.0f);
  clock_ = clock;
}

PassiveServer::PassiveServer(SharedModel& model, PassiveOptions options, int rank)
    : model_(model), options_(std::move(options)), rank_(rank) {
  const size_t n = size_t(options_.workers);
  mayAverage_.assign(n, false);
  expectDone_.assign(n, rank_ == 0);  // rank 0 counts every worker's ticks
  done_.assign(n, false);
  for (int peer : options_.senders) {
    mayAverage_[size_t(peer)] = true;
    expectDone_[size_t(peer)] = true;
  }
  for (bool expected : expectDone_) doneLeft_ += expected ? 1 : 0;
}

void PassiveServer::run(Transport& transport) {
  try {
    while (doneLeft_ > 0) {
      Message message;
      try {
        message = transport.recvAny(options_.tags.request);
      } catch (const TimeoutError& error) {
        TETRAD_FAIL(TimeoutError, "{} (waiting for {})", error.what(), awaited());
      }
      onRequest(transport, message);
      reap(false);
    }
    reap(true);
  } catch (const Error&) {  // not `...`: SimGrid stops actors with its own exception
    rethrowWithPrefix(fmt::format("AD-PSGD passive task of rank {}: ", rank_));
  }
}

void PassiveServer::onRequest(Transport& transport, const Message& message) {
  const int peer = message.source;
  TETRAD_CHECK(peer >= 0 && peer < options_.workers, ProtocolError, "request from rank {}", peer);
  ByteReader reader(message.bytes);
  const auto kind = Kind(reader.get<uint8_t>("request kind"));
  const auto field = reader.get<int64_t>("request field");
  switch (kind) {
    case Kind::kAverage: {
      TETRAD_CHECK(mayAverage_[size_t(peer)] && !done_[size_t(peer)], ProtocolError,
                   "averaging request from rank {}, which is not a neighbour (or is done)", peer);
      const size_t n = model_.size();
      TETRAD_CHECK(reader.remaining() == n * sizeof(float), ProtocolError,
                   "averaging request from rank {} holds {} bytes, expected {} ({} floats)", peer,
                   reader.remaining(), n * sizeof(float), n);
      incoming_.resize(n);
      const ConstBytes payload = reader.getBytes(n * sizeof(float), "model");
      std::memcpy(incoming_.data(), payload.data(), payload.size());
      ByteBuffer bytes(sizeof(int64_t) + n * sizeof(float));
      model_.serve(incoming_, bytes);
      reply(transport, peer, options_.tags.averageReply, std::move(bytes));
      return;
    }
    case Kind::kTick: {
      TETRAD_CHECK(rank_ == 0 && !done_[size_t(peer)], ProtocolError,
                   "step tick from rank {} at rank {}", peer, rank_);
      const int64_t count = ++count_;
      ByteBuffer bytes(kTickReplyBytes);
      std::memcpy(bytes.data(), &count, sizeof(count));
      const bool stop = options_.updateLimit > 0 && count >= options_.updateLimit;
      bytes[sizeof(count)] = std::byte(stop ? 1 : 0);
      reply(transport, peer, options_.tags.tickReply, std::move(bytes));
      return;
    }
    case Kind::kDone:
      TETRAD_CHECK(expectDone_[size_t(peer)] && !done_[size_t(peer)], ProtocolError,
                   "unexpected end from rank {}", peer);
      done_[size_t(peer)] = true;
      --doneLeft_;
      return;
  }
  TETRAD_FAIL(ProtocolError, "request of unknown kind {} (field {}) from rank {}", int(kind), field,
              peer);
}

void PassiveServer::reply(Transport& transport, int peer, Tag tag, ByteBuffer bytes) {
  replies_.push_back({std::move(bytes), nullptr});
  InFlight& flight = replies_.back();
  flight.request = transport.isend(peer, tag, flight.bytes);
}

void PassiveServer::reap(bool all) {
  while (!replies_.empty() && (all || replies_.front().request->test())) {
    replies_.front().request->wait();
    replies_.pop_front();
  }
}

std::string PassiveServer::awaited() const {
  std::string ranks;
  for (size_t r = 0; r < done_.size(); ++r) {
    if (expectDone_[r] && !done_[r])
      ranks += fmt::format("{}rank {}", ranks.empty() ? "" : ", ", r);
  }
  return ranks.empty() ? "no rank" : ranks;
}

}  // namespace tetrad::adpsgd
