#include "tetrad/transport/mpi/mpi_transport.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <thread>

#include "tetrad/core/error.h"
#include "tetrad/transport/mpi/mpi_request.h"
#include "tetrad/transport/mpi/mpi_runtime.h"
#include "tetrad/transport/mpi/mpi_util.h"
#include "tetrad/transport/mpi/node_layout.h"
#include "tetrad/transport/mpi/pieced_request.h"
#include "tetrad/transport/mpi/thread_queue.h"
#include "tetrad/transport/mpi/stall_poll.h"
#include "tetrad/transport/mpi/thread_task.h"

namespace tetrad::mpi {

namespace {
constexpr const char* kRanksPerNodeVariable = "TETRAD_MPI_RANKS_PER_NODE";
constexpr const char* kPieceBytesVariable = "TETRAD_MPI_PIECE_BYTES";
// Room left under the eager limit for Open MPI's own headers.
constexpr size_t kPieceHeadroom = 128;

// TETRAD_MPI_PIECE_BYTES: -1 when not set, else bytes >= 0.
int64_t parsePieceBytes(const char* text) {
  if (text == nullptr) return -1;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  TETRAD_CHECK(end != text && *end == '\0' && value >= 0 && value <= (int64_t{1} << 30),
               InvalidArgument, "{}='{}' must be a number of bytes from 0 to 2^30",
               kPieceBytesVariable, text);
  return value;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}
}  // namespace

MpiTransport::MpiTransport(double timeoutSeconds)
    : Transport(MpiRuntime::instance().worldRank(), MpiRuntime::instance().worldSize(),
                timeoutSeconds),
      start_(std::chrono::steady_clock::now()),
      watchdog_([](const std::string& description) {
        std::fprintf(stderr, "tetrad: %s; aborting all ranks\n", description.c_str());
        std::fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }) {
  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Comm_idup(MPI_COMM_WORLD, &comm_, &request), rank(), "MPI_Comm_idup");
  waitCollective(request, "MPI_Comm_idup");
  checkMpi(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), rank(), "MPI_Comm_set_errhandler");
  checkMpi(MPI_Comm_idup(MPI_COMM_WORLD, &pieceComm_, &request), rank(), "MPI_Comm_idup");
  waitCollective(request, "MPI_Comm_idup");
  checkMpi(MPI_Comm_set_errhandler(pieceComm_, MPI_ERRORS_RETURN), rank(),
           "MPI_Comm_set_errhandler");
  int* tagUpperBound = nullptr;
  int found = 0;
  checkMpi(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tagUpperBound, &found), rank(),
           "MPI_Comm_get_attr(MPI_TAG_UB)");
  TETRAD_CHECK(found && *tagUpperBound >= static_cast<int>(kMaxUserTag - 1), Unsupported,
               "rank {}: this MPI library allows tags up to {}, tetrad needs {}", rank(),
               found ? *tagUpperBound : -1, kMaxUserTag - 1);
  learnLayout();
}

MpiTransport::~MpiTransport() {
  if (!abandoned_.empty()) {
    // MPI may still write into these: they must outlive this object.
    new std::vector<ByteBuffer>(std::move(abandoned_));  // NOLINT: deliberate leak
  }
}

void MpiTransport::close() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
  if (pieceComm_ != MPI_COMM_NULL) MPI_Comm_free(&pieceComm_);
}

void MpiTransport::waitCollective(MPI_Request& request, const char* what) {
  int code = MPI_SUCCESS;
  bool done = pollFor(timeout(), [&] {
    int flag = 0;
    code = MPI_Test(&request, &flag, MPI_STATUS_IGNORE);
    return flag != 0 || code != MPI_SUCCESS;
  });
  checkMpi(code, rank(), what);
  // A pending collective cannot be cancelled or freed: it is left behind.
  TETRAD_CHECK(done, TimeoutError,
               "rank {}: timed out after {} s waiting for all {} ranks to start the MPI "
               "transport ({})",
               rank(), timeout(), size(), what);
}

void MpiTransport::learnLayout() {
  // Every rank contributes {override, piece bytes, eager limit, host name},
  // so that the collective is the same on all ranks whatever their
  // environment says.
  struct Settings {
    int32_t forced = 0;   // TETRAD_MPI_RANKS_PER_NODE; 0: not set; -1: invalid here
    int64_t pieces = -1;  // TETRAD_MPI_PIECE_BYTES; -1: not set; -2: invalid here
    uint64_t eagerLimit = 0;
  };
  constexpr size_t kRecord = sizeof(Settings) + MPI_MAX_PROCESSOR_NAME;
  Settings mine;
  std::exception_ptr localError;
  const char* forcedText = std::getenv(kRanksPerNodeVariable);
  if (forcedText != nullptr) {
    try {
      mine.forced = parseRanksPerNode(forcedText, size());
    } catch (const InvalidArgument&) {
      mine.forced = -1;
      localError = std::current_exception();
    }
  }
  const char* piecesText = std::getenv(kPieceBytesVariable);
  try {
    mine.pieces = parsePieceBytes(piecesText);
  } catch (const InvalidArgument&) {
    mine.pieces = -2;
    if (!localError) localError = std::current_exception();
  }
  mine.eagerLimit = tcpEagerLimit();
  std::vector<char> records(static_cast<size_t>(size()) * kRecord, '\0');
  char* own = records.data() + static_cast<size_t>(rank()) * kRecord;
  std::memcpy(own, &mine, sizeof mine);
  int length = 0;
  checkMpi(MPI_Get_processor_name(own + sizeof mine, &length), rank(), "MPI_Get_processor_name");
  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, records.data(),
                          static_cast<int>(kRecord), MPI_BYTE, comm_, &request),
           rank(), "MPI_Iallgather");
  waitCollective(request, "MPI_Iallgather of host names");

  auto shown = [](const char* text) {
    return text ? fmt::format("'{}'", text) : std::string("not set");
  };
  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(size()));
  uint64_t eagerLimit = mine.eagerLimit;
  for (int r = 0; r < size(); ++r) {
    const char* record = records.data() + static_cast<size_t>(r) * kRecord;
    Settings theirs;
    std::memcpy(&theirs, record, sizeof theirs);
    if (localError && (theirs.forced != mine.forced || theirs.pieces != mine.pieces)) {
      std::rethrow_exception(localError);
    }
    TETRAD_CHECK(theirs.forced == mine.forced, InvalidArgument,
                 "rank {}: {} is {} here but differs on rank {}; set it for every rank "
                 "(mpirun -x {})",
                 rank(), kRanksPerNodeVariable, shown(forcedText), r, kRanksPerNodeVariable);
    TETRAD_CHECK(theirs.pieces == mine.pieces, InvalidArgument,
                 "rank {}: {} is {} here but differs on rank {}; set it for every rank "
                 "(mpirun -x {})",
                 rank(), kPieceBytesVariable, shown(piecesText), r, kPieceBytesVariable);
    eagerLimit = std::min(eagerLimit, theirs.eagerLimit);
    const char* name = record + sizeof theirs;
    hosts.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }
  if (localError) std::rethrow_exception(localError);
  ranksPerNode_ = mine.forced > 0 ? mine.forced : ranksPerNodeFromHosts(hosts);

  piecesTo_.assign(static_cast<size_t>(size()), 0);
  if (mine.pieces >= 0) {
    pieceBytes_ = static_cast<size_t>(mine.pieces);
    for (int r = 0; r < size(); ++r) piecesTo_[static_cast<size_t>(r)] = r != rank();
  } else {
    pieceBytes_ = eagerLimit > 2 * kPieceHeadroom ? eagerLimit - kPieceHeadroom : 0;
    for (int r = 0; r < size(); ++r) {
      piecesTo_[static_cast<size_t>(r)] =
          hosts[static_cast<size_t>(r)] != hosts[static_cast<size_t>(rank())];
    }
  }
}

RequestPtr MpiTransport::post(MpiRequest::Kind kind, int peer, Tag tag, std::byte* data,
                              size_t bytes) {
  if (usesPieces(peer, bytes)) {
    std::lock_guard lock(postMutex_);
    return std::make_unique<PiecedRequest>(*this, comm_, pieceComm_, kind, peer, tag, data, bytes,
                                           pieceBytes_);
  }
  auto request = std::make_unique<MpiRequest>(*this, comm_, kind, peer, tag, data, bytes);
  if (kind == MpiRequest::Kind::kRecv && bytes >= kPieceHeaderBytes && pieceBytes_ > 0 &&
      piecesTo_[static_cast<size_t>(peer)]) {
    request->rejectPieceHeaders();
  }
  return request;
}

void MpiTransport::send(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "send");
  checkTag(tag, "send");
  traffic().countSent(peer, data.size());
  post(MpiRequest::Kind::kSend, peer, tag, const_cast<std::byte*>(data.data()), data.size())
      ->wait();
}

void MpiTransport::recv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "recv");
  checkTag(tag, "recv");
  post(MpiRequest::Kind::kRecv, peer, tag, data.data(), data.size())->wait();
}

RequestPtr MpiTransport::isend(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "isend");
  checkTag(tag, "isend");
  traffic().countSent(peer, data.size());
  return post(MpiRequest::Kind::kSend, peer, tag, const_cast<std::byte*>(data.data()), data.size());
}

RequestPtr MpiTransport::irecv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "irecv");
  checkTag(tag, "irecv");
  return post(MpiRequest::Kind::kRecv, peer, tag, data.data(), data.size());
}

ByteBuffer MpiTransport::recvMessage(int peer, Tag tag) {
  checkPeer(peer, "recvMessage");
  checkTag(tag, "recvMessage");
  return probeAndReceive(peer, tag, "recvMessage").bytes;
}

Message MpiTransport::recvAny(Tag tag) {
  checkTag(tag, "recvAny");
  return probeAndReceive(MPI_ANY_SOURCE, tag, "recvAny");
}

Message MpiTransport::probeAndReceive(int source, Tag tag, const char* operation) {
  auto from = [&] {
    return source == MPI_ANY_SOURCE ? std::string("any rank") : fmt::format("rank {}", source);
  };
  const auto start = std::chrono::steady_clock::now();
  MPI_Message message = MPI_MESSAGE_NULL;
  MPI_Status status{};
  int code = MPI_SUCCESS;
  Message result;
  bool taken = false;  // a possible piece header, received under the posting mutex
  std::unique_ptr<PiecedRequest> pieced;
  bool found = pollReporting(*this, timeout(), operation, source == MPI_ANY_SOURCE ? -1 : source,
                             tag, -1, [&] {
    // A header and its pieces are taken under the posting mutex, so that no
    // other receive posts pieces from the same peer in between.
    std::unique_lock lock(postMutex_, std::defer_lock);
    if (pieceBytes_ > 0) lock.lock();
    int flag = 0;
    code = MPI_Improbe(source, static_cast<int>(tag), comm_, &flag, &message, &status);
    if (code != MPI_SUCCESS) return true;
    if (flag == 0) return false;
    if (statusBytes(status) == kPieceHeaderBytes && pieceBytes_ > 0 &&
        piecesTo_[static_cast<size_t>(status.MPI_SOURCE)]) {
      result = receiveMatched(message, status, start, operation, tag);
      taken = true;
      if (isPieceHeader(result.bytes.data())) {
        const uint64_t bytes = pieceHeaderSize(result.bytes.data());
        result.bytes.assign(bytes, std::byte{0});
        pieced = std::make_unique<PiecedRequest>(*this, pieceComm_, result.source, tag,
                                                 result.bytes.data(), bytes, pieceBytes_);
      }
    }
    return true;
  });
  checkMpi(code, rank(), fmt::format("{} from {} (tag {})", operation, from(), tag));
  TETRAD_CHECK(found, TimeoutError, "rank {}: {} from {} (tag {}) timed out after {} s", rank(),
               operation, from(), tag, timeout());
  if (pieced) {
    try {
      pieced->wait();  // counts the bytes
    } catch (const TimeoutError&) {
      // Released pieces may still be written into: keep the buffer alive.
      pieced.reset();
      std::lock_guard lock(abandonedMutex_);
      abandoned_.push_back(std::move(result.bytes));
      throw;
    }
    return result;
  }
  if (!taken) result = receiveMatched(message, status, start, operation, tag);
  traffic().countReceived(result.source, result.bytes.size());
  return result;
}

Message MpiTransport::receiveMatched(MPI_Message& message, const MPI_Status& status,
                                     std::chrono::steady_clock::time_point start,
                                     const char* operation, Tag tag) {
  Message result;
  result.source = status.MPI_SOURCE;
  const uint64_t bytes = statusBytes(status);
  result.bytes.resize(bytes);
  ByteRun run(bytes);
  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Imrecv(result.bytes.data(), run.count(), run.type(), &message, &request), rank(),
           "MPI_Imrecv");
  MPI_Status received{};
  int code = MPI_SUCCESS;
  bool done = pollFor(
      std::max(0.0, timeout() - secondsSince(start)),
      [&] {
        int flag = 0;
        code = MPI_Test(&request, &flag, &received);
        return flag != 0 || code != MPI_SUCCESS;
      },
      busySecondsFor(bytes));
  if (!done) {
    // A matched receive cannot be cancelled: keep its buffer alive.
    MPI_Request_free(&request);
    std::lock_guard lock(abandonedMutex_);
    abandoned_.push_back(std::move(result.bytes));
    TETRAD_FAIL(TimeoutError,
                "rank {}: {} from rank {} (tag {}, {} bytes) timed out after {} s while receiving",
                rank(), operation, result.source, tag, bytes, timeout());
  }
  if (code != MPI_SUCCESS && request != MPI_REQUEST_NULL) MPI_Request_free(&request);
  checkMpi(code, rank(), fmt::format("{} from rank {} (tag {})", operation, result.source, tag));
  return result;
}

double MpiTransport::now() const {
  return secondsSince(start_);
}

void MpiTransport::sleepFor(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
}

TaskPtr MpiTransport::spawn(std::string name, std::function<void()> body) {
  return std::make_unique<ThreadTask>(std::move(name), std::move(body));
}

LocalQueuePtr MpiTransport::makeQueue(std::string name) {
  return std::make_unique<ThreadQueue>(rank(), std::move(name), timeout());
}

void MpiTransport::nativeAllreduce(std::span<float> data, ReduceOp op) {
  Watchdog::Scope guard(watchdog_, timeout(),
                        fmt::format("rank {}: nativeAllreduce (MPI_Allreduce of {} floats) timed "
                                    "out after {} s",
                                    rank(), data.size(), timeout()));
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t offset = 0; offset < data.size(); offset += kChunk) {
    const int count = static_cast<int>(std::min(kChunk, data.size() - offset));
    checkMpi(MPI_Allreduce(MPI_IN_PLACE, data.data() + offset, count, MPI_FLOAT, MPI_SUM, comm_),
             rank(), fmt::format("MPI_Allreduce of {} floats", count));
  }
  if (op == ReduceOp::kAverage) {
    const float ranks = static_cast<float>(size());
    for (float& value : data) value /= ranks;
  }
}

}  // namespace tetrad::mpi
