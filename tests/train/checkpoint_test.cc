// Checkpoint and resume (train/checkpoint/checkpoint_store.h, rank_trainer_checkpoint.cc)
// on the SimGrid engine:
//   - a run stopped after iteration N (the stop-signal test hook) and
//     resumed ends with the parameters of the uninterrupted run bit for bit,
//     and its metrics.jsonl equals the uninterrupted one's apart from wall
//     times (simulated times to 1e-12: see expectSameRecord), and every
//     rank's byte totals equal — for BSP with none, top-k + EF and
//     PowerSGD, Local SGD, D-PSGD, CHOCO-SGD, the parameter server (with
//     and without a pull compressor), SSP and ASP on the parameter server,
//     an overlapping schedule and a model with batch-norm buffers (AD-PSGD:
//     check_checkpoint_async.sh);
//   - a checkpoint of another configuration or a damaged file
//     is refused with a message naming what differs;
//   - checkpoint files: atomic write, checksum, truncation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tetrad/core/error.h"
#include "tetrad/launch/launcher.h"
#include "tetrad/train/checkpoint/checkpoint_file.h"
#include "tetrad/train/checkpoint/checkpoint_store.h"
#include "tetrad/train/checkpoint/checkpoint_writer.h"
#include "tetrad/train/loop/rank_trainer.h"
#include "tetrad/train/record/run_recorder.h"
#include "train_test_util.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

using testing::Outcome;
using testing::runInFolder;

// Equal records; times (keys ending in "_time") to 1e-12 relative: in one
// process the engine's clock keeps counting across runs, so a run's times
// are differences of other absolute instants and round differently in the
// last bits (check_checkpoint.sh compares separate processes exactly).
void expectSameRecord(const nlohmann::json& got, const nlohmann::json& want, size_t line) {
  ASSERT_EQ(got.size(), want.size()) << "metrics line " << line << ": " << got << " vs " << want;
  for (const auto& [key, value] : want.items()) {
    ASSERT_TRUE(got.contains(key)) << "metrics line " << line << " lacks " << key;
    const bool time = key.size() > 5 && key.substr(key.size() - 5) == "_time";
    if (time && value.is_number()) {
      const double a = got[key], b = value;
      EXPECT_NEAR(a, b, 1e-12 * std::max(1.0, std::abs(b)))
          << "metrics line " << line << " " << key;
    } else {
      EXPECT_EQ(got[key], value) << "metrics line " << line << " " << key;
    }
  }
}

class Checkpoint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { at::set_num_threads(1); }
  void TearDown() override { unsetenv("TETRAD_TEST_STOP_AT"); }

  TrainConfig configFor(const std::string& name) {
    TrainConfig c = testing::equivalenceConfig("mlp", 8, 12, "ring");
    c.workers = 2;
    c.logEvery = 2;
    c.evalEvery = 6;
    c.checkpointEvery = 4;
    c.compute = "fixed:5ms";  // simulated times are a function of the run
    c.out = testing::makeTempDir("checkpoint-" + name);
    return c;
  }

  // Runs `config` uninterrupted, then stopped by a signal during iteration
  // `stopAt` (it stops after iteration `checkpointAt`, by default the same)
  // and resumed; expects the same parameters and metrics.
  void expectResumeEquivalent(TrainConfig config, int workers, int64_t stopAt,
                              int64_t checkpointAt = -1) {
    if (checkpointAt < 0) checkpointAt = stopAt;
    const std::string folder = config.out;
    config.out = folder + "/whole";
    const Outcome whole = runInFolder(config, data_, workers);
    ASSERT_EQ(whole.status, "finished");
    ASSERT_FALSE(whole.parameters.empty());

    config.out = folder + "/stopped";
    setenv("TETRAD_TEST_STOP_AT", std::to_string(stopAt).c_str(), 1);
    const Outcome stopped = runInFolder(config, data_, workers);
    unsetenv("TETRAD_TEST_STOP_AT");
    ASSERT_EQ(stopped.status, "interrupted");
    EXPECT_NE(stopped.parameters, whole.parameters);
    EXPECT_TRUE(fs::exists(fs::path(config.out) / "checkpoint" /
                           fmt::format("iter-{:06}", checkpointAt) / "rank-00000.ckpt"));

    config.resume = config.out;
    const Outcome resumed = runInFolder(config, data_, workers);
    EXPECT_EQ(resumed.status, "finished");
    EXPECT_EQ(resumed.parameters, whole.parameters);
    ASSERT_EQ(resumed.metrics.size(), whole.metrics.size());
    for (size_t i = 0; i < whole.metrics.size(); ++i) {
      expectSameRecord(resumed.metrics[i], whole.metrics[i], i + 1);
    }
    // Every rank's totals, servers included (their books travel in their
    // shards' checkpoints), and what the servers saw.
    ASSERT_EQ(resumed.ranks.size(), whole.ranks.size());
    for (size_t k = 0; k < whole.ranks.size(); ++k) {
      EXPECT_EQ(resumed.ranks[k].bytesSent, whole.ranks[k].bytesSent) << "rank " << k;
      EXPECT_EQ(resumed.ranks[k].bytesReceived, whole.ranks[k].bytesReceived) << "rank " << k;
      EXPECT_NEAR(resumed.ranks[k].commTime, whole.ranks[k].commTime,
                  1e-12 * std::max(1.0, whole.ranks[k].commTime))
          << "rank " << k;
    }
    EXPECT_EQ(resumed.updatesApplied, whole.updatesApplied);
    EXPECT_EQ(resumed.stalenessHistogram, whole.stalenessHistogram);
  }

  DataSplits data_ = testing::smallSynthetic(512, 64);
};

TEST_F(Checkpoint, BspResumesBitForBit) {
  // Its guard's word rides on the dense exchange, which carries no stop
  // request (compress/guard_rider.h): the signal is agreed at the next
  // checkpoint (every 4).
  expectResumeEquivalent(configFor("bsp"), 2, 5, 8);
}

// Without the non-finite guard's per-iteration agreement, the workers agree
// on a stop at the next checkpoint: iteration 8 of --checkpoint-every 4.
TEST_F(Checkpoint, WithoutTheGuardASignalStopsAtTheNextCheckpoint) {
  TrainConfig c = configFor("guard-off");
  c.onNonFinite = "off";
  expectResumeEquivalent(c, 2, 5, 8);
}

TEST_F(Checkpoint, TopkWithErrorFeedbackResumesBitForBit) {
  TrainConfig c = configFor("topk");
  c.compress = "topk:0.01,ef";
  expectResumeEquivalent(c, 2, 7);
}

TEST_F(Checkpoint, PowerSgdResumesBitForBit) {
  TrainConfig c = configFor("powersgd");
  c.compress = "powersgd:2";
  expectResumeEquivalent(c, 2, 4);
}

TEST_F(Checkpoint, LocalSgdResumesBitForBit) {
  TrainConfig c = configFor("local");
  c.sync = "local:3";
  expectResumeEquivalent(c, 2, 5);  // between two averages: the anchor matters
}

// accum:3's checkpoint at iteration 8 holds two micro-batches' gradients
// (steps after 3, 6 and 9): the resumed run steps on the same sum.
TEST_F(Checkpoint, GradientAccumulationResumesBitForBitBetweenTwoSteps) {
  TrainConfig c = configFor("accum");
  c.sync = "accum:3";
  expectResumeEquivalent(c, 2, 5, 8);
}

TEST_F(Checkpoint, GossipResumesBitForBit) {
  TrainConfig c = configFor("dpsgd");
  c.workers = 3;
  c.arch = "gossip:ring";
  expectResumeEquivalent(c, 3, 5);
  TrainConfig choco = configFor("choco");
  choco.workers = 3;
  choco.arch = "gossip:ring";
  choco.gossip = "choco:0.5";
  choco.compress = "topk:0.1";
  expectResumeEquivalent(choco, 3, 5);
}

TEST_F(Checkpoint, ParameterServerResumesBitForBit) {
  TrainConfig c = configFor("ps");
  c.arch = "ps:2";
  c.compress = "topk:0.1,ef";
  expectResumeEquivalent(c, 2, 5);
}

// The servers' pull compressor keeps error-feedback residuals of the sums.
TEST_F(Checkpoint, ParameterServerWithPullCompressionResumesBitForBit) {
  TrainConfig c = configFor("ps-pull");
  c.arch = "ps:2";
  c.psPullCompress = "topk:0.1,ef";
  expectResumeEquivalent(c, 2, 5);
}

// Push-pull: a stop during local step 5 is acted on at the cut after local
// step 8 (--checkpoint-every 4), where every worker waits for the others.
// The servers' weights, clocks and staleness statistics are in the
// checkpoint; three workers, so that the order of their pushes matters.
TEST_F(Checkpoint, StaleSynchronousOnDedicatedServersResumesBitForBit) {
  TrainConfig c = configFor("ssp");
  c.workers = 3;
  c.sync = "ssp:1";
  c.arch = "ps:2";
  c.compress = "topk:0.1,ef";
  expectResumeEquivalent(c, 3, 5, 8);
}

TEST_F(Checkpoint, AsynchronousOnColocatedServersWithPullCompressionResumesBitForBit) {
  TrainConfig c = configFor("asp");
  c.workers = 3;
  c.sync = "asp";
  c.arch = "ps:3:colocated";
  c.psPullCompress = "fp16";
  expectResumeEquivalent(c, 3, 5, 8);
}

// AD-PSGD is checked in fresh processes by check_checkpoint_async.sh (models,
// losses, times and bytes bit for bit): its step counter numbers the ticks
// that arrive at one simulated instant in the engine's internal order of
// simultaneous events, so its staleness statistics can differ.

TEST_F(Checkpoint, OverlappedScheduleResumesBitForBit) {
  TrainConfig c = configFor("wfbp");
  c.sched = "priority:64KiB";
  expectResumeEquivalent(c, 2, 5);
}

TEST_F(Checkpoint, BatchNormBuffersResumeBitForBit) {
  TrainConfig c = configFor("resnet20");
  c.model = "resnet20";
  c.maxIters = 6;
  c.evalEvery = 3;
  c.checkpointEvery = 2;
  expectResumeEquivalent(c, 2, 3, 4);  // agreed at the next checkpoint, as BSP's above
}

TEST_F(Checkpoint, AnotherConfigurationIsRefusedNamingWhatDiffers) {
  TrainConfig c = configFor("mismatch");
  // At a checkpoint (every 4): BSP's guard rides on the dense exchange,
  // which agrees on stop requests there (compress/guard_rider.h).
  setenv("TETRAD_TEST_STOP_AT", "4", 1);
  ASSERT_EQ(runInFolder(c, data_, 2).status, "interrupted");
  unsetenv("TETRAD_TEST_STOP_AT");
  c.resume = c.out;
  TrainConfig other = c;
  other.compress = "fp16";
  try {
    runInFolder(other, data_, 2);
    FAIL() << "another compressor was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("compress \"fp16\" (checkpoint: \"none\")"),
              std::string::npos)
        << e.what();
  }
  // Another worker count is an elastic resize (resize_test.cc), but not
  // together with another configuration.
  other = c;
  other.workers = 4;
  other.compress = "fp16";
  try {
    runInFolder(other, data_, 4);
    FAIL() << "another compressor was accepted on another worker count";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("compress \"fp16\" (checkpoint: \"none\")"),
              std::string::npos)
        << e.what();
  }
  other = c;
  other.model = "cnn";
  EXPECT_THROW(runInFolder(other, data_, 2), InvalidArgument);
  // A damaged file: one byte flipped in rank 1's.
  const fs::path file = fs::path(c.out) / "checkpoint" / "iter-000004" / "rank-00001.ckpt";
  {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);
    char byte = 0;
    f.read(&byte, 1);
    f.seekp(100);
    byte = char(byte ^ 0x5a);
    f.write(&byte, 1);
  }
  try {
    runInFolder(c, data_, 2);
    FAIL() << "a damaged checkpoint was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged: checksum mismatch"), std::string::npos)
        << e.what();
  }
}

TEST(CheckpointFile, RoundTripsAndRefusesDamage) {
  const std::string dir = testing::makeTempDir("checkpoint-file");
  const std::string path = dir + "/state.ckpt";
  CheckpointSections sections;
  sections.putText("identity", "{\"model\":\"mlp\"}");
  sections.put("bytes", ByteBuffer(1000, std::byte{7}));
  writeCheckpointFile(path, sections);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  const CheckpointSections back = readCheckpointFile(path);
  EXPECT_EQ(back.getText("identity", path), "{\"model\":\"mlp\"}");
  EXPECT_EQ(back.get("bytes", path).size(), 1000u);
  EXPECT_THROW(back.get("missing", path), InvalidArgument);
  // Truncated.
  fs::resize_file(path, fs::file_size(path) - 10);
  try {
    readCheckpointFile(path);
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
  }
  // Not a checkpoint at all.
  std::ofstream(path, std::ios::trunc) << "hello";
  EXPECT_THROW(readCheckpointFile(path), InvalidArgument);
  EXPECT_THROW(readCheckpointFile(dir + "/absent.ckpt"), InvalidArgument);
}

TEST(CheckpointStore, NewestCompleteCheckpointWins) {
  const std::string dir = testing::makeTempDir("checkpoint-store");
  CheckpointStore rank0(dir, 0, 2), rank1(dir, 1, 2);
  CheckpointSections s;
  s.putText("x", "y");
  EXPECT_EQ(rank0.latestComplete(), -1);
  rank0.write(4, s);
  EXPECT_EQ(rank0.latestComplete(), -1);  // rank 1's file is missing
  rank1.write(4, s);
  rank0.write(8, s);
  EXPECT_EQ(rank0.latestComplete(), 4);  // 8 is not complete
  rank1.write(8, s);
  EXPECT_EQ(rank1.latestComplete(), 8);
  rank0.write(12, s);  // removes rank 0's iteration 4, keeps 8
  EXPECT_FALSE(fs::exists(rank0.pathOf(4, 0)));
  EXPECT_TRUE(fs::exists(rank0.pathOf(8, 0)));
  EXPECT_EQ(rank0.latestComplete(), 8);
}

// The writer off the loop (checkpoint_writer.h): files appear once flushed,
// three newest are kept per worker, a checkpoint's world names its worker
// count for a resize, and a failed write is thrown by the next call.
TEST(CheckpointWriter, WritesOffTheLoopKeepsThreeAndReportsFailures) {
  const std::string dir = testing::makeTempDir("checkpoint-writer");
  CheckpointStore store(dir, 0, 1);
  {
    CheckpointWriter writer(store, /*synchronous=*/false);
    for (int64_t iteration : {4, 8, 12, 16}) {
      CheckpointSections s;
      s.putText("world", worldText(1, 0));
      s.put("payload", ByteBuffer(1 << 20, std::byte{7}));
      EXPECT_GE(writer.submit(iteration, std::move(s)), 0.0);
    }
    writer.flush();
  }
  EXPECT_FALSE(fs::exists(store.pathOf(4, 0)));
  for (int64_t kept : {8, 12, 16}) EXPECT_TRUE(fs::exists(store.pathOf(kept, 0))) << kept;
  const CheckpointAt at = store.latestCompleteOfAnySize();
  EXPECT_EQ(at.iteration, 16);
  EXPECT_EQ(at.workers, 1);
  // A folder that cannot be made: the error reaches flush(), naming it.
  const std::string blocked = dir + "/blocked";
  std::ofstream(blocked) << "a file, not a folder";
  CheckpointStore broken(blocked, 0, 1);
  CheckpointWriter writer(broken, /*synchronous=*/false);
  writer.submit(4, CheckpointSections());
  try {
    writer.flush();
    FAIL() << "a write into a file's path succeeded";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("blocked"), std::string::npos) << e.what();
  }
}

TEST(CheckpointStore, IdentityIgnoresPresentationAndNamesDifferences) {
  const std::string a = R"({"model":"mlp","workers":2,"out":"a","timeout":60})";
  const std::string b = R"({"model":"cnn","workers":2,"out":"b","timeout":30})";
  EXPECT_EQ(describeMismatch(runIdentity(a), runIdentity(a)), "");
  EXPECT_EQ(describeMismatch(runIdentity(a), runIdentity(b)),
            "model \"cnn\" (checkpoint: \"mlp\")");
}

}  // namespace
}  // namespace tetrad::train
