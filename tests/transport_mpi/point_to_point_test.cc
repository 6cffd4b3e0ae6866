// Point-to-point messaging of the Open MPI transport, run under mpirun with
// 1 to 4 ranks (tests that need two ranks skip on one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "mpi_test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::payload;
using testing::payloadMismatches;
using testing::runWorld;

TEST(MpiPointToPoint, EngineBasics) {
  runWorld([](Transport& t) {
    EXPECT_EQ(t.engine(), "mpi");
    EXPECT_TRUE(t.carriesPayload());
    EXPECT_GE(t.rank(), 0);
    EXPECT_LT(t.rank(), t.size());
    EXPECT_THROW(t.send(t.size(), 1, {}), InvalidArgument);
    EXPECT_THROW(t.recv(-1, 1, {}), InvalidArgument);
    if (t.size() > 1) {
      EXPECT_THROW(t.send((t.rank() + 1) % t.size(), kMaxUserTag, {}), InvalidArgument);
    }
  });
}

// A rank may send to itself (a worker and its colocated server shard); such
// messages are not network traffic and are not counted.
TEST(MpiPointToPoint, MessagesToSelfArriveAndAreNotCounted) {
  runWorld([](Transport& t) {
    std::vector<float> out = payload(t.rank(), 100000), in(out.size());
    const uint64_t sent = t.traffic().totalBytesSent();
    RequestPtr send = t.isend(t.rank(), 7, std::as_bytes(std::span(out)));
    t.recv(t.rank(), 7, std::as_writable_bytes(std::span(in)));
    send->wait();
    EXPECT_EQ(in, out);
    EXPECT_EQ(t.traffic().totalBytesSent(), sent);
    EXPECT_EQ(t.traffic().bytesReceivedFrom(t.rank()), 0u);
  });
}

TEST(MpiPointToPoint, RingExchangeOfManySizes) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const int right = (t.rank() + 1) % t.size();
    const int left = (t.rank() + t.size() - 1) % t.size();
    // 0 B, eager, and rendezvous (4 MiB) messages.
    for (size_t count : {size_t{0}, size_t{1}, size_t{1000}, size_t{1} << 20}) {
      std::vector<float> out = payload(t.rank(), count);
      std::vector<float> in(count, -1.0f);
      RequestPtr sending = t.isend(right, 3, asBytes(std::span<const float>(out)));
      t.recvValues<float>(left, 3, in);
      sending->wait();
      EXPECT_TRUE(sending->test());
      EXPECT_EQ(payloadMismatches(left, in), 0u) << count << " floats from rank " << left;
    }
  });
}

TEST(MpiPointToPoint, MessagesWithOneTagArriveInOrder) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    constexpr int kPerTag = 40;
    const int last = t.size() - 1;
    if (t.rank() == 0) {
      for (int i = 0; i < kPerTag; ++i) {
        for (Tag tag : {Tag{11}, Tag{12}}) {
          int value = static_cast<int>(tag) * 1000 + i;
          t.sendValues<int>(last, tag, std::span<const int>(&value, 1));
        }
      }
    } else if (t.rank() == last) {
      // Drain tag 12 first: tag 11's messages wait, in order, meanwhile.
      for (Tag tag : {Tag{12}, Tag{11}}) {
        for (int i = 0; i < kPerTag; ++i) {
          int value = -1;
          t.recvValues<int>(0, tag, std::span<int>(&value, 1));
          EXPECT_EQ(value, static_cast<int>(tag) * 1000 + i);
        }
      }
    }
  });
}

TEST(MpiPointToPoint, RecvAnyReceivesEveryRank) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    constexpr Tag kTag = 21;
    if (t.rank() != 0) {
      std::vector<float> out = payload(t.rank(), static_cast<size_t>(t.rank()) * 10);
      t.sendValues<float>(0, kTag, out);
      return;
    }
    std::set<int> sources;
    for (int i = 1; i < t.size(); ++i) {
      Message message = t.recvAny(kTag);
      ASSERT_GT(message.source, 0);
      ASSERT_LT(message.source, t.size());
      sources.insert(message.source);
      ASSERT_EQ(message.bytes.size(), static_cast<size_t>(message.source) * 10 * sizeof(float));
      std::vector<float> values(message.bytes.size() / sizeof(float));
      std::memcpy(values.data(), message.bytes.data(), message.bytes.size());
      EXPECT_EQ(payloadMismatches(message.source, values), 0u);
      EXPECT_EQ(t.traffic().bytesReceivedFrom(message.source), message.bytes.size());
    }
    EXPECT_EQ(static_cast<int>(sources.size()), t.size() - 1);
  });
}

TEST(MpiPointToPoint, NonBlockingReceivePostedBeforeTheSend) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    constexpr size_t kCount = 300000;  // above the eager limit
    if (t.rank() == 1) {
      std::vector<float> big(kCount, -1.0f);
      std::vector<int> small(3, -1);
      RequestPtr bigRequest = t.irecv(0, 31, asWritableBytes(std::span<float>(big)));
      RequestPtr smallRequest = t.irecv(0, 32, asWritableBytes(std::span<int>(small)));
      EXPECT_FALSE(bigRequest->test());  // rank 0 has not sent: it waits for "go"
      EXPECT_FALSE(smallRequest->test());
      int go = 1;
      t.sendValues<int>(0, 30, std::span<const int>(&go, 1));
      std::vector<RequestPtr> requests;
      requests.push_back(std::move(bigRequest));
      requests.push_back(std::move(smallRequest));
      waitAll(requests);
      EXPECT_EQ(payloadMismatches(0, big), 0u);
      EXPECT_EQ(small, (std::vector<int>{7, 8, 9}));
    } else if (t.rank() == 0) {
      int go = 0;
      t.recvValues<int>(1, 30, std::span<int>(&go, 1));
      EXPECT_EQ(go, 1);
      std::vector<int> small = {7, 8, 9};
      std::vector<float> big = payload(0, kCount);
      RequestPtr a = t.isend(1, 32, asBytes(std::span<const int>(small)));
      RequestPtr b = t.isend(1, 31, asBytes(std::span<const float>(big)));
      b->wait();
      a->wait();
    }
  });
}

TEST(MpiPointToPoint, RecvMessageOfUnknownSize) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    const std::vector<size_t> counts = {0, 3, 1024, 750000};
    if (t.rank() == 0) {
      for (size_t count : counts) {
        std::vector<float> out = payload(0, count);
        t.sendValues<float>(1, 41, out);
      }
    } else if (t.rank() == 1) {
      uint64_t expectedBytes = 0;
      for (size_t count : counts) {
        ByteBuffer bytes = t.recvMessage(0, 41);
        ASSERT_EQ(bytes.size(), count * sizeof(float));
        std::vector<float> values(count);
        if (count > 0) std::memcpy(values.data(), bytes.data(), bytes.size());
        EXPECT_EQ(payloadMismatches(0, values), 0u);
        expectedBytes += bytes.size();
      }
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), expectedBytes);
      EXPECT_EQ(t.traffic().messagesReceivedFrom(0), counts.size());
    }
  });
}

// Expects `call` to throw ProtocolError whose message contains every piece.
template <typename Call>
void expectProtocolError(Call&& call, const std::vector<std::string>& pieces) {
  try {
    call();
    ADD_FAILURE() << "no ProtocolError";
  } catch (const ProtocolError& e) {
    for (const std::string& piece : pieces) {
      EXPECT_NE(std::string(e.what()).find(piece), std::string::npos)
          << "'" << e.what() << "' lacks '" << piece << "'";
    }
  }
}

TEST(MpiPointToPoint, SizeMismatchIsAProtocolError) {
  runWorld([](Transport& t) {
    if (t.size() < 2) GTEST_SKIP() << "needs 2 ranks";
    if (t.rank() == 0) {
      std::vector<std::byte> longer(100), shorter(10), huge(1 << 20), exact(16);
      t.send(1, 5, longer);
      t.send(1, 6, shorter);
      RequestPtr big = t.isend(1, 7, huge);
      t.send(1, 8, exact);
      big->wait();
    } else if (t.rank() == 1) {
      std::vector<std::byte> buffer(64);
      expectProtocolError([&] { t.recv(0, 5, buffer); },
                          {"rank 1:", "rank 0", "tag 5", "expected 64 bytes", "got 100 bytes"});
      expectProtocolError([&] { t.irecv(0, 6, buffer)->wait(); },
                          {"rank 0", "tag 6", "expected 64 bytes", "got 10 bytes"});
      expectProtocolError([&] { t.recv(0, 7, buffer); },
                          {"rank 0", "tag 7", "expected 64 bytes", "got 1048576 bytes"});
      // The transport still works, and refused messages were not counted.
      std::vector<std::byte> exact(16);
      t.recv(0, 8, exact);
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), 16u);
      EXPECT_EQ(t.traffic().messagesReceivedFrom(0), 1u);
    }
  });
}

}  // namespace
}  // namespace tetrad
