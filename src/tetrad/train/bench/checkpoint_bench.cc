#include "tetrad/train/bench/checkpoint_bench.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include "tetrad/core/error.h"
#include "tetrad/train/checkpoint/checkpoint_file.h"
#include "tetrad/train/checkpoint/checkpoint_writer.h"
#include "tetrad/train/compute/replica.h"
#include "tetrad/train/compute/wall_clock.h"
#include "tetrad/train/data/dataset.h"
#include "tetrad/train/trainer.h"

namespace tetrad::train {
namespace {

namespace fs = std::filesystem;

double median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

}  // namespace

std::vector<CheckpointBenchRow> benchCheckpoints(const CheckpointBenchOptions& options) {
  TETRAD_CHECK(options.repeats > 0, InvalidArgument, "bench checkpoint: --repeats {}: at least 1",
               options.repeats);
  const bool scratch = options.folder.empty();
  const fs::path folder = scratch ? fs::temp_directory_path() /
                                        ("tetrad-bench-checkpoint-" + std::to_string(::getpid()))
                                  : fs::path(options.folder);
  std::error_code ec;
  fs::create_directories(folder, ec);
  TETRAD_CHECK(!ec, InvalidArgument, "bench checkpoint: cannot create {}: {}", folder.string(),
               ec.message());
  std::vector<CheckpointBenchRow> rows;
  for (const std::string& model : options.models) {
    TrainConfig c = options.config;
    c.model = model;
    c.workers = 1;
    const ResolvedConfig resolved = resolveConfig(c);
    const DataSplits data = loadData(dataOptionsFor(c));
    Replica replica(resolved, data, 0, 1);
    replica.forwardBackward(0);
    replica.step(c.lr);  // the optimizer's momentum exists from here on

    CheckpointBenchRow row;
    row.model = model;
    row.parameters = int64_t(replica.flat().parameters().size());
    const std::string checkpointPath = (folder / (model + ".ckpt")).string();
    const std::string plainPath = (folder / (model + ".plain")).string();
    std::vector<double> serialised, written, plain, read, async;
    CheckpointStore store((folder / (model + "-async")).string(), 0, 1);
    CheckpointWriter writer(store, /*synchronous=*/false);
    for (int repeat = 0; repeat < options.repeats; ++repeat) {
      WallClock::time_point start = WallClock::now();
      CheckpointSections sections;
      sections.put("replica", replica.saveState());
      serialised.push_back(secondsSince(start));
      writeCheckpointFile(checkpointPath, sections);
      written.push_back(secondsSince(start));
      row.fileBytes = uint64_t(fs::file_size(checkpointPath));

      start = WallClock::now();
      CheckpointSections handed;
      handed.put("replica", replica.saveState());
      writer.submit(repeat + 1, std::move(handed));
      async.push_back(secondsSince(start));
      writer.flush();

      const ByteBuffer bytes(size_t(row.fileBytes), std::byte{1});
      start = WallClock::now();
      const ConstBytes piece(bytes);
      writeFileSynced(plainPath, std::span(&piece, 1));
      plain.push_back(secondsSince(start));

      start = WallClock::now();
      const CheckpointSections back = readCheckpointFile(checkpointPath);
      replica.loadState(back.get("replica", checkpointPath), checkpointPath);
      read.push_back(secondsSince(start));

    }
    row.serialiseSeconds = median(serialised);
    row.checkpointSeconds = median(written);
    row.plainSeconds = median(plain);
    row.readSeconds = median(read);
    row.asyncSeconds = median(async);
    rows.push_back(row);
    fs::remove(checkpointPath, ec);
    fs::remove(plainPath, ec);
  }
  if (scratch) fs::remove_all(folder, ec);
  return rows;
}

}  // namespace tetrad::train
