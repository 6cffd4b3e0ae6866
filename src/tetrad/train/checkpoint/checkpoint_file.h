// CheckpointFile: one file of named byte sections, written atomically and
// verified when read back (rank_trainer_checkpoint.cc puts a run's state in them).
//
// Layout (little-endian, as the machine writes it; a checkpoint is read back
// on the machines that wrote it):
//   "TETRADCK" | u32 version | u64 payload bytes | u32 CRC-32 of the payload
//   payload: u32 section count, then per section
//            u32 name bytes, name, u64 value bytes, value
// writeCheckpointFile() writes PATH.tmp, flushes it to disk (fsync), then
// renames it over PATH: a crash at any moment leaves either the previous
// PATH or the new one, never a torn file. readCheckpointFile() refuses a
// file that is truncated, has another magic or version, or whose checksum
// does not match, with an InvalidArgument naming the file and the fault.
//
// Test hook: TETRAD_TEST_CHECKPOINT_CRASH=N makes the N-th call of
// writeCheckpointFile() in this process write half of PATH.tmp and end the
// process at once (_exit(86)), as a crash while writing would.
//
// Thread-safety: free functions; CheckpointSections is a value type.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tetrad/core/bytes.h"

namespace tetrad::train {

class CheckpointSections {
 public:
  // Adds (or replaces) section `name`.
  void put(std::string name, ByteBuffer value);
  void putText(std::string name, std::string_view text);
  bool has(std::string_view name) const;
  // The section's bytes; InvalidArgument naming `origin` (a file) when absent.
  ConstBytes get(std::string_view name, std::string_view origin) const;
  std::string getText(std::string_view name, std::string_view origin) const;
  const std::vector<std::pair<std::string, ByteBuffer>>& items() const { return items_; }

 private:
  std::vector<std::pair<std::string, ByteBuffer>> items_;
};

void writeCheckpointFile(const std::string& path, const CheckpointSections& sections);
CheckpointSections readCheckpointFile(const std::string& path);

// Creates (or truncates) `path`, writes `pieces` one after the other and
// flushes the file to disk (fsync); Error naming the path. The checkpoint
// writer's primitive, and the plain write its benchmark compares with.
void writeFileSynced(const std::string& path, std::span<const ConstBytes> pieces);

}  // namespace tetrad::train
