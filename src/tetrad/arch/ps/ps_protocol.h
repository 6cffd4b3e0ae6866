// The parameter server's wire protocol (internal to arch/ps).
//
// Worker -> shard, on the shard's request tag (received with recvAny):
//   u8 kind, u8 stream, u16 reserved (0), u32 partition, i64 clock, then
//   kInit  the partition's initial weights as a packet ("none");
//   kPush  a packet of the run's compressor: a bucket piece to be summed
//          (collective streams) or a model change to be applied (push-pull);
//   kDone  nothing: this worker has finished;
//   kCheckpoint  nothing: the shard's state, please (from the worker that
//          answers for the shard in checkpoints, at a quiescent cut);
//   kRestore  the state a kCheckpoint reply carried, before any push of a
//          resumed run.
// Shard -> worker, on the reply tag (received with recvAny too, so that all
// shards answer at once):
//   u32 partition, u8 stop, u8/u16 reserved (0), i64 updates applied, i64
//   staleness of the update this reply answers (-1: none), then a
//   packet of the pull compressor (the sum, or the current weights), or
//   nothing (acknowledging kInit and kRestore), or the shard's state
//   (answering kCheckpoint; the partition field then holds the shard).
// Every field is checked on arrival: a malformed message, an unknown kind, a
// partition the shard does not own or a clock out of order is a
// ProtocolError naming the peer.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

#include "tetrad/core/bytes.h"

namespace tetrad::ps {

enum class RequestKind : uint8_t { kInit = 1, kPush = 2, kDone = 3, kCheckpoint = 4, kRestore = 5 };

struct RequestHeader {
  RequestKind kind = RequestKind::kPush;
  uint8_t stream = 0;
  uint32_t partition = 0;
  int64_t clock = 0;
};
constexpr size_t kRequestHeaderBytes = 16;

struct ReplyHeader {
  uint32_t partition = 0;
  bool stop = false;
  int64_t updatesApplied = 0;
  int64_t staleness = -1;
};
constexpr size_t kReplyHeaderBytes = 24;

void writeRequestHeader(ByteWriter& writer, const RequestHeader& header);
RequestHeader readRequestHeader(ByteReader& reader);  // throws ProtocolError
void writeReplyHeader(ByteWriter& writer, const ReplyHeader& header);
ReplyHeader readReplyHeader(ByteReader& reader);  // throws ProtocolError

}  // namespace tetrad::ps
