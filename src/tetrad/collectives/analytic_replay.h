// MessageReplay: the timing of a recorded message schedule on a contention-
// free network (internal to the analytic engine, analytic_collective.h).
//
// Each rank's part of a collective is a list of operations as its code made
// them: post a send or a receive (peer, tag, bytes, request id), wait for a
// request, or spend local time. replayMessages() times them with the rule
// of the simulator's rendezvous messages: messages between one (source,
// destination, tag) match in order; a transfer starts when both its send
// and its receive are posted and lasts `seconds(from, to, bytes)`; a wait
// ends when its request's transfer does, and a rank's clock only moves
// forward. All ranks start at 0. The result is each rank's finish time and
// its per-peer traffic (self-messages not counted, as TrafficCounters).
//
// Errors: a receive whose size differs from the matching send, and a
// schedule that cannot finish (a rank waits for a message never sent), are
// ProtocolError naming the ranks and the tag.
//
// Thread-safety: pure function.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "tetrad/transport/transport.h"

namespace tetrad::detail {

struct RecordedOp {
  enum class Kind : uint8_t { kSend, kRecv, kWait, kDelay };
  Kind kind = Kind::kWait;
  int peer = -1;
  Tag tag = 0;
  int request = -1;    // send/recv: the request posted; wait: the one waited for
  uint64_t bytes = 0;  // send/recv
  double seconds = 0;  // delay
};

struct PeerTraffic {
  int peer = -1;
  uint64_t bytesSent = 0, messagesSent = 0, bytesReceived = 0, messagesReceived = 0;
};

struct ReplayResult {
  std::vector<double> finish;  // per rank, seconds after the common start
  // Rank r's peers: traffic[trafficBegin[r] .. trafficBegin[r + 1]), by peer.
  std::vector<uint32_t> trafficBegin;
  std::vector<PeerTraffic> traffic;
};

using MessageSeconds = std::function<double(int from, int to, uint64_t bytes)>;

// `ops[r]`: rank r's operations; request ids are per rank, 0 .. n-1.
ReplayResult replayMessages(const std::vector<std::vector<RecordedOp>>& ops,
                            const MessageSeconds& seconds);

}  // namespace tetrad::detail
