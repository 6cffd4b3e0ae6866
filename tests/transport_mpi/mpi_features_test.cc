// Timeouts, traffic counters, the native all-reduce, tasks, clocks and node
// layout of the Open MPI transport, run under mpirun with 1 to 4 ranks.
#include <gtest/gtest.h>
#include <time.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

#include "mpi_test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::payload;
using testing::payloadMismatches;
using testing::runWorld;

// Runs `call`, expects TimeoutError mentioning every piece, returns seconds taken.
template <typename Call>
double expectTimeout(Call&& call, const std::vector<std::string>& pieces) {
  auto start = std::chrono::steady_clock::now();
  try {
    call();
    ADD_FAILURE() << "no TimeoutError";
  } catch (const TimeoutError& e) {
    for (const std::string& piece : pieces) {
      EXPECT_NE(std::string(e.what()).find(piece), std::string::npos)
          << "'" << e.what() << "' lacks '" << piece << "'";
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(MpiFeatures, ReceiveTimeoutsNameThePeerAndTag) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() != 1) return;  // rank 0 stays silent
    t.setTimeout(0.3);
    std::vector<std::byte> buffer(8);
    double seconds = expectTimeout([&] { t.recv(0, 9, buffer); },
                                   {"rank 1:", "recv from rank 0", "tag 9", "timed out"});
    EXPECT_GE(seconds, 0.3);
    EXPECT_LT(seconds, 5.0);  // generous: the test machine is shared
    expectTimeout([&] { t.irecv(0, 10, buffer)->wait(); }, {"rank 0", "tag 10"});
    expectTimeout([&] { t.recvMessage(0, 11); }, {"recvMessage from rank 0", "tag 11"});
    expectTimeout([&] { t.recvAny(12); }, {"recvAny from any rank", "tag 12"});
  });
}

double threadCpuSeconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

TEST(MpiFeatures, LongWaitsDoNotBurnACore) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() != 0) return;  // the others stay silent
    t.setTimeout(1.0);
    std::vector<std::byte> buffer(8);
    const double cpuBefore = threadCpuSeconds();
    double seconds = expectTimeout([&] { t.recv(1, 20, buffer); }, {"rank 1", "tag 20"});
    const double cpu = threadCpuSeconds() - cpuBefore;
    EXPECT_GE(seconds, 1.0);
    EXPECT_LT(cpu, 0.25 * seconds) << "polling used " << cpu << " s of CPU in " << seconds << " s";
  });
}

TEST(MpiFeatures, SendTimeoutNamesThePeerAndTheMessageStillArrives) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (std::getenv("TETRAD_MPI_PIECE_BYTES") != nullptr) {
      GTEST_SKIP() << "pieces are eager: a send completes without the receiver";
    }
    constexpr size_t kCount = 1 << 20;  // rendezvous: needs the receiver
    if (t.rank() == 0) {
      std::vector<float> data = payload(0, kCount);
      t.setTimeout(0.3);
      expectTimeout([&] { t.sendValues<float>(1, 13, data); },
                    {"rank 0:", "send to rank 1", "tag 13", "timed out"});
      t.setTimeout(20);
      int go = 1;
      t.sendValues<int>(1, 14, std::span<const int>(&go, 1));
      // The abandoned send completes in the background; `data` must live
      // until rank 1 confirms.
      t.recvValues<int>(1, 15, std::span<int>(&go, 1));
    } else if (t.rank() == 1) {
      int go = 0;
      t.recvValues<int>(0, 14, std::span<int>(&go, 1));
      std::vector<float> data(kCount);
      t.recvValues<float>(0, 13, data);
      EXPECT_EQ(payloadMismatches(0, data), 0u);
      t.sendValues<int>(0, 15, std::span<const int>(&go, 1));
    }
  });
}

TEST(MpiFeatures, TrafficCountersArePayloadBytesPerPeer) {
  runWorld([](Transport& t) {
    const int n = t.size();
    auto bytesBetween = [](int from, int to) { return size_t(from + 1) * 100 + size_t(to); };
    std::vector<ByteBuffer> out(n), in(n);
    std::vector<RequestPtr> requests;
    for (int peer = 0; peer < n; ++peer) {
      if (peer == t.rank()) continue;
      out[peer].assign(bytesBetween(t.rank(), peer), std::byte{1});
      in[peer].resize(bytesBetween(peer, t.rank()));
      requests.push_back(t.irecv(peer, 16, in[peer]));
      requests.push_back(t.isend(peer, 16, out[peer]));
    }
    waitAll(requests);
    uint64_t sent = 0, received = 0;
    for (int peer = 0; peer < n; ++peer) {
      if (peer == t.rank()) {
        EXPECT_EQ(t.traffic().bytesSentTo(peer), 0u);
        continue;
      }
      EXPECT_EQ(t.traffic().bytesSentTo(peer), bytesBetween(t.rank(), peer));
      EXPECT_EQ(t.traffic().bytesReceivedFrom(peer), bytesBetween(peer, t.rank()));
      EXPECT_EQ(t.traffic().messagesSentTo(peer), 1u);
      EXPECT_EQ(t.traffic().messagesReceivedFrom(peer), 1u);
      sent += bytesBetween(t.rank(), peer);
      received += bytesBetween(peer, t.rank());
    }
    EXPECT_EQ(t.traffic().totalBytesSent(), sent);
    EXPECT_EQ(t.traffic().totalBytesReceived(), received);
    EXPECT_EQ(t.traffic().totalMessagesSent(), static_cast<uint64_t>(n - 1));
  });
}

TEST(MpiFeatures, NativeAllreduceSumsAndAverages) {
  runWorld([](Transport& t) {
    const int n = t.size();
    for (size_t count : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20}) {
      std::vector<float> data(count);
      for (size_t i = 0; i < count; ++i) data[i] = static_cast<float>(t.rank() + i % 1000);
      t.nativeAllreduce(data, ReduceOp::kSum);
      size_t wrong = 0;
      for (size_t i = 0; i < count; ++i) {
        wrong += data[i] != static_cast<float>(n * (n - 1) / 2 + n * (i % 1000));
      }
      EXPECT_EQ(wrong, 0u) << count << " floats";
    }
    std::vector<float> data = {static_cast<float>(t.rank()), 2.0f};
    t.nativeAllreduce(data, ReduceOp::kAverage);
    EXPECT_FLOAT_EQ(data[0], (n - 1) / 2.0f);
    EXPECT_FLOAT_EQ(data[1], 2.0f);
  });
}

TEST(MpiFeatures, SpawnedTaskCommunicatesConcurrently) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() > 1) return;
    const int peer = 1 - t.rank();
    constexpr size_t kCount = 1 << 20;  // blocking sends of this size need a receiver
    std::vector<float> in(kCount);
    TaskPtr receiver = t.spawn("receiver", [&] { t.recvValues<float>(peer, 17, in); });
    std::vector<float> out = payload(t.rank(), kCount);
    t.sendValues<float>(peer, 17, out);
    receiver->join();
    EXPECT_EQ(payloadMismatches(peer, in), 0u);
  });
}

TEST(MpiFeatures, TaskJoinRethrowsTheBodysError) {
  runWorld([](Transport& t) {
    TaskPtr task = t.spawn("thrower", [] { throw ProtocolError("bad packet from the task"); });
    try {
      task->join();
      ADD_FAILURE() << "join did not rethrow";
    } catch (const ProtocolError& e) {
      EXPECT_STREQ(e.what(), "bad packet from the task");
    }
    // A task destroyed without join swallows its error instead of crashing.
    TaskPtr dropped = t.spawn("dropped", [] { throw Error("ignored"); });
    dropped.reset();
    // A task's timeout propagates too.
    if (t.size() > 1) {
      t.setTimeout(0.2);
      TaskPtr waiter = t.spawn("waiter", [&] { t.recvMessage((t.rank() + 1) % t.size(), 18); });
      EXPECT_THROW(waiter->join(), TimeoutError);
    }
  });
}

TEST(MpiFeatures, ClockAndSleep) {
  runWorld([](Transport& t) {
    double start = t.now();
    EXPECT_GE(start, 0.0);
    EXPECT_LT(start, 5.0);  // seconds since this launch began
    t.compute(5.0);         // a no-op on real processes
    t.sleepFor(0.05);
    double elapsed = t.now() - start;
    EXPECT_GE(elapsed, 0.05);
    EXPECT_LT(elapsed, 5.0);
  });
}

TEST(MpiFeatures, RanksPerNodeGroupsRanksOfOneHost) {
  // All test ranks run on this machine.
  runWorld([](Transport& t) { EXPECT_EQ(t.ranksPerNode(), t.size()); });
  setenv("TETRAD_MPI_RANKS_PER_NODE", "1", 1);
  runWorld([](Transport& t) { EXPECT_EQ(t.ranksPerNode(), 1); });
  unsetenv("TETRAD_MPI_RANKS_PER_NODE");
}

TEST(MpiFeatures, MessageLargerThanTwoGiB) {
  if (std::getenv("TETRAD_MPI_BIG_TEST") == nullptr) {
    GTEST_SKIP() << "set TETRAD_MPI_BIG_TEST=1 to send 2.1 GiB (needs ~9 GB of memory)";
  }
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() > 1) return;
    const size_t bytes = (size_t{1} << 31) + 12345;
    ByteBuffer buffer(bytes);
    if (t.rank() == 0) {
      for (size_t i = 0; i < bytes; i += 4096) buffer[i] = std::byte(i / 4096 % 251);
      buffer[bytes - 1] = std::byte{42};
      t.send(1, 19, buffer);
    } else {
      t.recv(0, 19, buffer);
      size_t wrong = 0;
      for (size_t i = 0; i < bytes; i += 4096) wrong += buffer[i] != std::byte(i / 4096 % 251);
      EXPECT_EQ(wrong, 0u);
      EXPECT_EQ(buffer[bytes - 1], std::byte{42});
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), bytes);
    }
  });
}

}  // namespace
}  // namespace tetrad
