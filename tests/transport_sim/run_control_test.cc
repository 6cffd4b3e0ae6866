// Run-level behaviour of the SimGrid engine: recvAny, timeouts, error
// propagation, determinism, spawn/join, payload-free mode, configuration.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <vector>

#include "sim_test_util.h"
#include "tetrad/core/error.h"

namespace tetrad {
namespace {

using testing::simOptions;

template <typename ErrorType, typename Fn>
std::string expectError(const LaunchOptions& options, Fn worker) {
  try {
    runSimulation(options, worker);
  } catch (const ErrorType& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
    return {};
  }
  ADD_FAILURE() << "no exception";
  return {};
}

TEST(SimRun, RecvAnyServesEverySourceInOrder) {
  runSimulation(simOptions("sim:4x10Gbps,25us"), [](Transport& t) {
    if (t.rank() == 0) {
      std::map<int, std::vector<int32_t>> seen;
      for (int i = 0; i < 9; ++i) {
        Message m = t.recvAny(11);
        ASSERT_EQ(m.bytes.size(), sizeof(int32_t));
        int32_t value;
        std::memcpy(&value, m.bytes.data(), sizeof value);
        EXPECT_EQ(value / 100, m.source);
        seen[m.source].push_back(value % 100);
      }
      for (int source = 1; source < 4; ++source) {
        EXPECT_EQ(seen[source], (std::vector<int32_t>{0, 1, 2})) << "source " << source;
      }
      EXPECT_EQ(t.traffic().totalBytesReceived(), 9 * sizeof(int32_t));
    } else {
      t.compute(0.001 * (4 - t.rank()));  // rank 3 first
      for (int32_t i = 0; i < 3; ++i) {
        int32_t value = 100 * t.rank() + i;
        t.sendValues<int32_t>(0, 11, std::span<const int32_t>(&value, 1));
      }
    }
  });
}

TEST(SimRun, RecvAnyFirstArrivalWins) {
  runSimulation(simOptions("sim:3x10Gbps,25us"), [](Transport& t) {
    if (t.rank() == 0) {
      EXPECT_EQ(t.recvAny(2).source, 2);
      EXPECT_EQ(t.recvAny(2).source, 1);
    } else {
      t.compute(t.rank() == 1 ? 0.5 : 0.1);
      t.send(0, 2, {});
    }
  });
}

TEST(SimRun, SilentPeerTimesOutNamingRankPeerAndTag) {
  LaunchOptions options = simOptions("sim:2x10Gbps,25us");
  options.timeoutSeconds = 3;
  double failedAt = -1;
  std::string message = expectError<TimeoutError>(options, [&](Transport& t) {
    if (t.rank() == 1) {
      try {
        std::vector<std::byte> buffer(8);
        t.recv(0, 5, buffer);
      } catch (const TimeoutError&) {
        failedAt = t.now();
        throw;
      }
    }
  });
  EXPECT_NE(message.find("rank 1: recv from rank 0 (tag 5) timed out after 3 s"), std::string::npos)
      << message;
  EXPECT_NEAR(failedAt, 3.0, 1e-9);
}

TEST(SimRun, EveryWaitTimesOut) {
  LaunchOptions options = simOptions("sim:3x10Gbps,25us");
  options.timeoutSeconds = 1;
  auto onRank1 = [](auto body) {
    return [body](Transport& t) {
      if (t.rank() == 1) body(t);
    };
  };
  expectError<TimeoutError>(options, onRank1([](Transport& t) { t.send(0, 1, {}); }));
  expectError<TimeoutError>(options, onRank1([](Transport& t) { t.recvMessage(2, 1); }));
  std::string any = expectError<TimeoutError>(options, onRank1([](Transport& t) { t.recvAny(4); }));
  EXPECT_NE(any.find("rank 1: recvAny (tag 4)"), std::string::npos) << any;
  expectError<TimeoutError>(options, onRank1([](Transport& t) { t.isend(2, 1, {})->wait(); }));
  expectError<TimeoutError>(options, onRank1([](Transport& t) {
                              std::vector<std::byte> buffer(4);
                              t.irecv(0, 1, buffer)->wait();
                            }));
  expectError<TimeoutError>(options, onRank1([](Transport& t) {
                              TaskPtr task = t.spawn("sleeper", [&t] { t.sleepFor(5); });
                              task->join();
                            }));
}

TEST(SimRun, ThrowingRankStopsTheOthersAndKeepsItsType) {
  // Ranks 0, 1 and 3 wait on receives that never complete (a 1000 s timeout)
  // and hold abandoned requests; rank 2 fails at t = 1 s. The run must end at
  // once with rank 2's error.
  LaunchOptions options = simOptions("sim:4x10Gbps,25us");
  options.timeoutSeconds = 1000;
  std::string message = expectError<ProtocolError>(options, [](Transport& t) {
    if (t.rank() == 2) {
      t.compute(1);
      TETRAD_FAIL(ProtocolError, "bad packet of {} bytes", 3);
    }
    std::vector<std::byte> buffer(16);
    RequestPtr abandoned = t.irecv((t.rank() + 1) % 4, 8, buffer);
    TaskPtr helper = t.spawn("helper", [&t] { t.sleepFor(500); });
    t.recv((t.rank() + 1) % 4, 9, buffer);
  });
  EXPECT_EQ(message, "rank 2: bad packet of 3 bytes");
  // Any std::exception becomes a tetrad Error naming the rank.
  message = expectError<Error>(simOptions("sim:2x10Gbps,25us"), [](Transport& t) {
    if (t.rank() == 1) throw std::runtime_error("boom");
  });
  EXPECT_EQ(message, "rank 1: boom");
}

// An all-to-all of varied sizes, returning each rank's finish time and bytes.
std::vector<double> exchangeFingerprint() {
  std::vector<double> fingerprint(8 * 2);
  runSimulation(simOptions("sim:8x10Gbps,25us"), [&](Transport& t) {
    std::vector<std::vector<std::byte>> in(8), out(8);
    std::vector<RequestPtr> requests;
    for (int peer = 0; peer < 8; ++peer) {
      if (peer == t.rank()) continue;
      out[peer].resize(1000 * (1 + (t.rank() * 7 + peer) % 5));
      in[peer].resize(1000 * (1 + (peer * 7 + t.rank()) % 5));
      requests.push_back(t.irecv(peer, 0, in[peer]));
      requests.push_back(t.isend(peer, 0, out[peer]));
    }
    waitAll(requests);
    fingerprint[2 * t.rank()] = t.now();
    fingerprint[2 * t.rank() + 1] = static_cast<double>(t.traffic().totalBytesReceived());
  });
  return fingerprint;
}

TEST(SimRun, Deterministic) {
  std::vector<double> first = exchangeFingerprint();
  std::vector<double> second = exchangeFingerprint();
  EXPECT_EQ(first, second);  // bit-identical times and byte counts
  EXPECT_GT(first[0], 25e-6);
}

TEST(SimRun, SpawnRunsConcurrentlyAndJoinRethrows) {
  runSimulation(simOptions("sim:2x10Gbps,25us"), [](Transport& t) {
    if (t.rank() == 0) {
      TaskPtr sender = t.spawn("sender", [&t] {
        t.compute(2);
        int32_t value = 42;
        t.sendValues<int32_t>(1, 0, std::span<const int32_t>(&value, 1));
      });
      t.compute(1);
      EXPECT_NEAR(t.now(), 1.0, 1e-9);  // the task's compute ran alongside
      sender->join();
      EXPECT_NEAR(t.now(), 2.0, 1e-3);
      TaskPtr failing = t.spawn("failing", [] { TETRAD_FAIL(Unsupported, "no {}", "way"); });
      EXPECT_THROW(failing->join(), Unsupported);
    } else {
      int32_t value = 0;
      t.recvValues<int32_t>(0, 0, std::span<int32_t>(&value, 1));
      EXPECT_EQ(value, 42);
    }
  });
}

TEST(SimRun, PayloadFreeCarriesSizesOnly) {
  LaunchOptions options = simOptions("sim:3x10Gbps,25us");
  options.payloadFree = true;
  runSimulation(options, [](Transport& t) {
    EXPECT_FALSE(t.carriesPayload());
    std::vector<std::byte> buffer(1 << 20, std::byte{7});
    if (t.rank() == 0) {
      t.send(1, 0, buffer);
      t.send(2, 0, std::span<const std::byte>(buffer).first(100));
      t.send(1, 1, buffer);
      EXPECT_EQ(t.traffic().totalBytesSent(), (2u << 20) + 100u);
      std::vector<std::byte> ten(10);
      t.recv(1, 2, ten);
      t.send(1, 3, buffer);
    } else if (t.rank() == 1) {
      std::vector<std::byte> in(1 << 20, std::byte{1});
      t.recv(0, 0, in);
      EXPECT_EQ(in.front(), std::byte{1});  // untouched
      EXPECT_NEAR(t.now(), 25e-6 + (1 << 20) / (10e9 / 8), 1e-9);
      // A consuming receive has nothing to hand over: not called.
      bool consumed = false;
      t.irecvConsume(0, 1, in, [&](ConstBytes) { consumed = true; })->wait();
      EXPECT_FALSE(consumed);
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), 2u << 20);
      std::vector<std::byte> small(10);
      t.send(0, 2, small);  // rank 0 sends once more, with a size this rank does not expect
      EXPECT_THROW(t.recv(0, 3, small), ProtocolError);  // sizes still checked
    } else {
      ByteBuffer message = t.recvMessage(0, 0);
      EXPECT_EQ(message.size(), 100u);
      EXPECT_EQ(t.traffic().bytesReceivedFrom(0), 100u);
    }
  });
}

TEST(SimRun, EngineBasics) {
  runSimulation(simOptions("sim:2x10Gbps,25us"), [](Transport& t) {
    EXPECT_EQ(t.engine(), "sim");
    EXPECT_EQ(t.size(), 2);
    EXPECT_EQ(t.ranksPerNode(), 1);
    EXPECT_TRUE(t.carriesPayload());
    EXPECT_EQ(t.now(), 0.0);  // relative to this run, although earlier runs advanced the clock
    t.compute(0.25);
    EXPECT_DOUBLE_EQ(t.now(), 0.25);
    EXPECT_THROW(t.compute(-1), InvalidArgument);
    std::vector<float> data(4);
    EXPECT_THROW(t.nativeAllreduce(data, ReduceOp::kSum), Unsupported);
  });
}

TEST(SimRun, ConfigurationDoesNotLeakBetweenRuns) {
  auto oneMegabyte = [](std::vector<std::string> config) {
    double time = 0;
    runSimulation(simOptions("sim:2x10Gbps,25us", 0, std::move(config)), [&](Transport& t) {
      std::vector<std::byte> buffer(1 << 20);
      if (t.rank() == 0) t.send(1, 0, buffer);
      if (t.rank() == 1) {
        t.recv(0, 0, buffer);
        time = t.now();
      }
    });
    return time;
  };
  double alphaBeta = 25e-6 + (1 << 20) / (10e9 / 8);
  double lv08 = 13.01 * 25e-6 + (1 << 20) / (0.97 * 10e9 / 8);
  EXPECT_NEAR(oneMegabyte({}), lv08, 1e-9);
  EXPECT_NEAR(oneMegabyte(testing::alphaBetaConfig()), alphaBeta, 1e-9);
  EXPECT_NEAR(oneMegabyte({}), lv08, 1e-9);
  EXPECT_NEAR(oneMegabyte({"network/model:CM02"}), alphaBeta, 1e-9);  // no cross-traffic here
  EXPECT_THROW(oneMegabyte({"network/model:Banana"}), InvalidArgument);
  EXPECT_THROW(oneMegabyte({"nonsense"}), InvalidArgument);
  EXPECT_THROW(oneMegabyte({"contexts/factory:thread"}), Unsupported);
  EXPECT_NEAR(oneMegabyte({}), lv08, 1e-9);
}

}  // namespace
}  // namespace tetrad
