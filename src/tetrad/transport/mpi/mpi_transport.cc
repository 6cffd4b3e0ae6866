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
#include "tetrad/transport/mpi/stall_poll.h"
#include "tetrad/transport/mpi/thread_task.h"

namespace tetrad::mpi {

namespace {
constexpr const char* kRanksPerNodeVariable = "TETRAD_MPI_RANKS_PER_NODE";

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
  int* tagUpperBound = nullptr;
  int found = 0;
  checkMpi(MPI_Comm_get_attr(comm_, MPI_TAG_UB, &tagUpperBound, &found), rank(),
           "MPI_Comm_get_attr(MPI_TAG_UB)");
  TETRAD_CHECK(found && *tagUpperBound >= static_cast<int>(kMaxUserTag - 1), Unsupported,
               "rank {}: this MPI library allows tags up to {}, tetrad needs {}", rank(),
               found ? *tagUpperBound : -1, kMaxUserTag - 1);
  ranksPerNode_ = computeRanksPerNode();
}

MpiTransport::~MpiTransport() {
  if (!abandoned_.empty()) {
    // MPI may still write into these: they must outlive this object.
    new std::vector<ByteBuffer>(std::move(abandoned_));  // NOLINT: deliberate leak
  }
}

void MpiTransport::close() {
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
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

int MpiTransport::computeRanksPerNode() {
  // Every rank contributes {override, host name}, so that the collective is
  // the same on all ranks whatever their environment says.
  constexpr size_t kRecord = sizeof(int32_t) + MPI_MAX_PROCESSOR_NAME;
  int32_t forced = 0;  // 0: not set; -1: invalid here
  std::exception_ptr forcedError;
  const char* forcedText = std::getenv(kRanksPerNodeVariable);
  if (forcedText != nullptr) {
    try {
      forced = parseRanksPerNode(forcedText, size());
    } catch (const InvalidArgument&) {
      forced = -1;
      forcedError = std::current_exception();
    }
  }
  std::vector<char> records(static_cast<size_t>(size()) * kRecord, '\0');
  char* mine = records.data() + static_cast<size_t>(rank()) * kRecord;
  std::memcpy(mine, &forced, sizeof forced);
  int length = 0;
  checkMpi(MPI_Get_processor_name(mine + sizeof forced, &length), rank(), "MPI_Get_processor_name");
  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Iallgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, records.data(),
                          static_cast<int>(kRecord), MPI_BYTE, comm_, &request),
           rank(), "MPI_Iallgather");
  waitCollective(request, "MPI_Iallgather of host names");

  std::vector<std::string> hosts;
  hosts.reserve(static_cast<size_t>(size()));
  for (int r = 0; r < size(); ++r) {
    const char* record = records.data() + static_cast<size_t>(r) * kRecord;
    int32_t theirs = 0;
    std::memcpy(&theirs, record, sizeof theirs);
    if (theirs != forced) {
      if (forcedError) std::rethrow_exception(forcedError);
      TETRAD_FAIL(InvalidArgument,
                  "rank {}: {} is {} here but differs on rank {}; set it for every rank "
                  "(mpirun -x {})",
                  rank(), kRanksPerNodeVariable,
                  forcedText ? fmt::format("'{}'", forcedText) : std::string("not set"), r,
                  kRanksPerNodeVariable);
    }
    const char* name = record + sizeof theirs;
    hosts.emplace_back(name, strnlen(name, MPI_MAX_PROCESSOR_NAME));
  }
  if (forcedError) std::rethrow_exception(forcedError);
  if (forced > 0) return forced;
  return ranksPerNodeFromHosts(hosts);
}

void MpiTransport::send(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "send");
  checkTag(tag, "send");
  traffic().countSent(peer, data.size());
  MpiRequest request(*this, comm_, MpiRequest::Kind::kSend, peer, tag,
                     const_cast<std::byte*>(data.data()), data.size());
  request.wait();
}

void MpiTransport::recv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "recv");
  checkTag(tag, "recv");
  MpiRequest request(*this, comm_, MpiRequest::Kind::kRecv, peer, tag, data.data(), data.size());
  request.wait();
}

RequestPtr MpiTransport::isend(int peer, Tag tag, ConstBytes data) {
  checkPeer(peer, "isend");
  checkTag(tag, "isend");
  traffic().countSent(peer, data.size());
  return std::make_unique<MpiRequest>(*this, comm_, MpiRequest::Kind::kSend, peer, tag,
                                      const_cast<std::byte*>(data.data()), data.size());
}

RequestPtr MpiTransport::irecv(int peer, Tag tag, MutableBytes data) {
  checkPeer(peer, "irecv");
  checkTag(tag, "irecv");
  return std::make_unique<MpiRequest>(*this, comm_, MpiRequest::Kind::kRecv, peer, tag, data.data(),
                                      data.size());
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
  bool found = pollReporting(
      *this, timeout(), operation, source == MPI_ANY_SOURCE ? -1 : source, tag, -1, [&] {
        int flag = 0;
        code = MPI_Improbe(source, static_cast<int>(tag), comm_, &flag, &message, &status);
        return flag != 0 || code != MPI_SUCCESS;
      });
  checkMpi(code, rank(), fmt::format("{} from {} (tag {})", operation, from(), tag));
  TETRAD_CHECK(found, TimeoutError, "rank {}: {} from {} (tag {}) timed out after {} s", rank(),
               operation, from(), tag, timeout());

  Message result;
  result.source = status.MPI_SOURCE;
  const uint64_t bytes = statusBytes(status);
  result.bytes.resize(bytes);
  ByteRun run(bytes);
  MPI_Request request = MPI_REQUEST_NULL;
  checkMpi(MPI_Imrecv(result.bytes.data(), run.count(), run.type(), &message, &request), rank(),
           "MPI_Imrecv");
  MPI_Status received{};
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
  traffic().countReceived(result.source, bytes);
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
