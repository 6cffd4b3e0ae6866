// Large messages in pieces (transport/mpi/pieced_request.h), forced on
// every pair with TETRAD_MPI_PIECE_BYTES=40 (set on every rank before the
// launch): exact sizes and contents at and around the piece size, unknown
// sizes (recvMessage, recvAny), counters of payload bytes, size mismatches
// as ProtocolError, and no interleaving of two threads' messages to one
// (peer, tag).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::payload;
using testing::payloadMismatches;
using testing::runWorld;

constexpr const char* kPieces = "40";

// Sets TETRAD_MPI_PIECE_BYTES for one test (every rank runs every test).
class MpiPieces : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TETRAD_MPI_PIECE_BYTES", kPieces, 1); }
  void TearDown() override { unsetenv("TETRAD_MPI_PIECE_BYTES"); }
};

TEST_F(MpiPieces, SizesAroundThePieceArriveExactlyAndAreCountedOnce) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const int right = (t.rank() + 1) % t.size();
    const int left = (t.rank() + t.size() - 1) % t.size();
    // Bytes: plain (<= 40) and pieced, with and without a short last piece.
    const std::vector<size_t> counts = {0, 4, 10, 11, 20, 21, 250, 25001};
    uint64_t bytes = 0;
    for (size_t count : counts) {
      std::vector<float> out = payload(t.rank(), count);
      std::vector<float> in(count, -1.0f);
      RequestPtr receiving = t.irecv(left, 9, asWritableBytes(std::span<float>(in)));
      RequestPtr sending = t.isend(right, 9, asBytes(std::span<const float>(out)));
      receiving->wait();
      sending->wait();
      EXPECT_EQ(payloadMismatches(left, in), 0u) << count << " floats from rank " << left;
      bytes += count * sizeof(float);
    }
    EXPECT_EQ(t.traffic().bytesReceivedFrom(left), bytes);
    EXPECT_EQ(t.traffic().messagesReceivedFrom(left), counts.size());
    EXPECT_EQ(t.traffic().bytesSentTo(right), bytes);
    EXPECT_EQ(t.traffic().messagesSentTo(right), counts.size());
  });
}

// irecvConsume (the collectives' fused receive-and-add): under MPI the bytes
// arrive in the staging buffer, pieced or not, and are handed over once.
TEST_F(MpiPieces, ConsumeHandsTheStagedBytesOverOnce) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const int right = (t.rank() + 1) % t.size();
    const int left = (t.rank() + t.size() - 1) % t.size();
    for (size_t count : {size_t{4}, size_t{25001}}) {
      std::vector<float> out = payload(t.rank(), count);
      std::vector<float> staging(count, -1.0f), seen;
      int calls = 0;
      RequestPtr receiving = t.irecvConsume(left, 10, asWritableBytes(std::span<float>(staging)),
                                            [&](ConstBytes bytes) {
                                              ++calls;
                                              seen.resize(bytes.size() / sizeof(float));
                                              std::memcpy(seen.data(), bytes.data(), bytes.size());
                                            });
      RequestPtr sending = t.isend(right, 10, asBytes(std::span<const float>(out)));
      while (!receiving->test()) {
      }
      receiving->wait();
      sending->wait();
      EXPECT_EQ(calls, 1);
      ASSERT_EQ(seen.size(), count);
      EXPECT_EQ(payloadMismatches(left, seen), 0u) << count << " floats from rank " << left;
    }
  });
}

TEST_F(MpiPieces, UnknownSizesThroughRecvMessageAndRecvAny) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const std::vector<size_t> counts = {3, 4, 10, 11, 5000};
    if (t.rank() != 0) {
      for (size_t count : counts) t.sendValues<float>(0, 21, payload(t.rank(), count));
      t.sendValues<float>(0, 22, payload(t.rank(), 1000 + static_cast<size_t>(t.rank())));
      return;
    }
    for (int peer = 1; peer < t.size(); ++peer) {
      for (size_t count : counts) {
        ByteBuffer bytes = t.recvMessage(peer, 21);
        ASSERT_EQ(bytes.size(), count * sizeof(float));
        std::vector<float> values(count);
        std::memcpy(values.data(), bytes.data(), bytes.size());
        EXPECT_EQ(payloadMismatches(peer, values), 0u);
      }
    }
    std::vector<int> seen(static_cast<size_t>(t.size()), 0);
    for (int i = 1; i < t.size(); ++i) {
      Message m = t.recvAny(22);
      ASSERT_GT(m.source, 0);
      const size_t count = 1000 + static_cast<size_t>(m.source);
      ASSERT_EQ(m.bytes.size(), count * sizeof(float));
      std::vector<float> values(count);
      std::memcpy(values.data(), m.bytes.data(), m.bytes.size());
      EXPECT_EQ(payloadMismatches(m.source, values), 0u);
      ++seen[static_cast<size_t>(m.source)];
    }
    for (int peer = 1; peer < t.size(); ++peer) EXPECT_EQ(seen[static_cast<size_t>(peer)], 1);
  });
}

template <typename Call>
void expectProtocolError(Call&& call, const std::vector<std::string>& parts) {
  try {
    call();
    ADD_FAILURE() << "no ProtocolError";
  } catch (const ProtocolError& e) {
    for (const std::string& part : parts) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos)
          << "'" << e.what() << "' lacks '" << part << "'";
    }
  }
}

TEST_F(MpiPieces, SizeMismatchesAreProtocolErrors) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() == 0) {
      std::vector<std::byte> pieced(100), plain(10), toSmall(1000), exact(16, std::byte{7});
      t.send(1, 5, pieced);   // pieces where 64 bytes in pieces are expected
      t.send(1, 6, plain);    // a plain message where pieces are expected
      t.send(1, 7, toSmall);  // pieces where a plain 32 bytes are expected
      t.send(1, 8, exact);
    } else if (t.rank() == 1) {
      std::vector<std::byte> buffer(64), small(32);
      expectProtocolError([&] { t.recv(0, 5, buffer); },
                          {"rank 1:", "rank 0", "tag 5", "expected 64 bytes", "got 100 bytes"});
      expectProtocolError([&] { t.irecv(0, 6, buffer)->wait(); },
                          {"rank 0", "tag 6", "expected 64 bytes", "got 10 bytes"});
      expectProtocolError([&] { t.recv(0, 7, small); },
                          {"rank 0", "tag 7", "expected 32 bytes", "got 1000 bytes"});
      // The transport still works, and refused messages were not counted.
      std::vector<std::byte> exact(16);
      t.recv(0, 8, exact);
      EXPECT_EQ(exact[15], std::byte{7});
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), 16u);
      EXPECT_EQ(t.traffic().messagesReceivedFrom(0), 1u);
    }
  });
}

TEST_F(MpiPieces, TwoThreadsSendingToOnePeerAndTagNeverInterleave) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    constexpr int kPerThread = 30;
    constexpr size_t kFloats = 500;  // 50 pieces each
    if (t.rank() == 0) {
      auto sendAll = [&t](float value) {
        std::vector<float> out(kFloats, value);
        for (int i = 0; i < kPerThread; ++i) t.sendValues<float>(1, 12, out);
      };
      TaskPtr other = t.spawn("second sender", [&] { sendAll(2.0f); });
      sendAll(1.0f);
      other->join();
    } else if (t.rank() == 1) {
      int ones = 0, twos = 0;
      std::vector<float> in(kFloats);
      for (int i = 0; i < 2 * kPerThread; ++i) {
        t.recvValues<float>(0, 12, in);
        const float first = in.front();
        for (float value : in) ASSERT_EQ(value, first) << "message " << i << " is mixed";
        (first == 1.0f ? ones : twos)++;
      }
      EXPECT_EQ(ones, kPerThread);
      EXPECT_EQ(twos, kPerThread);
    }
  });
}

}  // namespace
}  // namespace tetrad
