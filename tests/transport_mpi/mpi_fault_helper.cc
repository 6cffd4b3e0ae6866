// Fault injection under mpirun, driven by tests/transport_mpi/CMakeLists.txt:
//
//   tetrad_mpi_fault_helper MODE RANK TIMEOUT_SECONDS
//
//   ok     every rank exchanges a message with its ring neighbours; exit 0.
//   stall  RANK sleeps far past the timeout; every other rank waits for a
//          message from RANK and must fail with a timeout naming it.
//   kill   after one exchange, RANK kills itself with SIGKILL; the others wait
//          for RANK and the job must end (non-zero) well before the timeout.
//   throw  RANK's worker throws InvalidArgument; it must be rethrown with the
//          rank named; the others time out waiting for RANK.
//   allreduce-stall  RANK stalls; the others enter nativeAllreduce, whose
//          watchdog must abort the job after the timeout.
//   hub    RANK is a hub: for up to 120 s, every other rank exchanges 1 MB
//          with it in both directions at once, over and over (a message
//          large enough to travel in pieces between hosts). The network
//          tests (tests/netlab) stop, kill or cut off RANK meanwhile; every
//          rank must then fail naming the peer it waits for. Prints
//          "fault-helper: hub running" once the first exchange is done.
//
// Errors are printed as "fault-helper: TYPE: MESSAGE" and give exit status 1.
// The helper deliberately does not call abortAllRanks(): the job must end on
// its own, without hanging.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "tetrad/core/error.h"
#include "tetrad/transport/engines.h"

namespace {

using tetrad::Transport;

void exchangeWithRing(Transport& t) {
  if (t.size() < 2) return;
  int right = (t.rank() + 1) % t.size();
  int left = (t.rank() + t.size() - 1) % t.size();
  int mine = t.rank();
  int theirs = -1;
  tetrad::RequestPtr sending = t.isend(right, 1, tetrad::asBytes(std::span<const int>(&mine, 1)));
  t.recvValues<int>(left, 1, std::span<int>(&theirs, 1));
  sending->wait();
  TETRAD_CHECK(theirs == left, tetrad::ProtocolError, "rank {} got {} from rank {}", t.rank(),
               theirs, left);
}

void waitForRank(Transport& t, int victim) {
  int value = 0;
  t.recvValues<int>(victim, 2, std::span<int>(&value, 1));
}

// Every rank other than `hub` exchanges with the hub until `seconds` pass.
void exchangeWithHub(Transport& t, int hub, double seconds) {
  constexpr size_t kFloats = 256 * 1024;  // 1 MB
  std::vector<float> out(kFloats, static_cast<float>(t.rank()));
  std::vector<std::vector<float>> in(static_cast<size_t>(t.size()), std::vector<float>(kFloats));
  const double start = t.now();
  for (int round = 0; t.now() - start < seconds; ++round) {
    std::vector<tetrad::RequestPtr> sends;
    for (int peer = 0; peer < t.size(); ++peer) {
      if (peer == t.rank() || (t.rank() != hub && peer != hub)) continue;
      sends.push_back(t.isend(peer, 3, tetrad::asBytes(std::span<const float>(out))));
    }
    for (int peer = 0; peer < t.size(); ++peer) {
      if (peer == t.rank() || (t.rank() != hub && peer != hub)) continue;
      std::vector<float>& from = in[static_cast<size_t>(peer)];
      t.recvValues<float>(peer, 3, std::span<float>(from));
      TETRAD_CHECK(from.front() == static_cast<float>(peer) && from.back() == from.front(),
                   tetrad::ProtocolError, "rank {} got wrong data from rank {}", t.rank(), peer);
    }
    tetrad::waitAll(sends);
    if (round == 0 && t.rank() == 0) {
      std::printf("fault-helper: hub running\n");
      std::fflush(stdout);
    }
  }
}

int report(const char* type, const std::exception& e) {
  std::fprintf(stderr, "fault-helper: %s: %s\n", type, e.what());
  std::fflush(stderr);
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s ok|stall|kill|throw|allreduce-stall|hub RANK TIMEOUT_SECONDS\n",
                 argv[0]);
    return 2;
  }
  const std::string mode = argv[1];
  const int victim = std::atoi(argv[2]);
  tetrad::LaunchOptions options;
  options.cluster = "mpi";
  options.timeoutSeconds = std::atof(argv[3]);
  try {
    tetrad::runMpiWorld(options, [&](Transport& t) {
      TETRAD_CHECK(victim >= 0 && victim < t.size(), tetrad::InvalidArgument,
                   "victim rank {} outside a world of {}", victim, t.size());
      exchangeWithRing(t);
      if (mode == "ok") return;
      if (mode == "hub") return exchangeWithHub(t, victim, 120);
      if (t.rank() != victim) {
        if (mode == "allreduce-stall") {
          std::vector<float> data(1000, 1.0f);
          t.nativeAllreduce(data, tetrad::ReduceOp::kSum);
        } else {
          waitForRank(t, victim);
        }
        return;
      }
      if (mode == "stall" || mode == "allreduce-stall") {
        std::this_thread::sleep_for(
            std::chrono::duration<double>(options.timeoutSeconds * 10 + 30));
      } else if (mode == "kill") {
        std::raise(SIGKILL);
      } else if (mode == "throw") {
        throw tetrad::InvalidArgument("deliberate failure");
      } else {
        throw tetrad::InvalidArgument("unknown mode '" + mode + "'");
      }
    });
  } catch (const tetrad::TimeoutError& e) {
    return report("TimeoutError", e);
  } catch (const tetrad::InvalidArgument& e) {
    return report("InvalidArgument", e);
  } catch (const tetrad::TransportError& e) {
    return report("TransportError", e);
  } catch (const std::exception& e) {
    return report("error", e);
  }
  std::printf("fault-helper: rank finished\n");
  return 0;
}
