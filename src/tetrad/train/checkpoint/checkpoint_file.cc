#include "tetrad/train/checkpoint/checkpoint_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr char kMagic[8] = {'T', 'E', 'T', 'R', 'A', 'D', 'C', 'K'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 8 + 4;

// CRC-32 of `bytes`, continuing `crc` (zlib's running value).
uLong crcOf(ConstBytes bytes, uLong crc = crc32(0L, Z_NULL, 0)) {
  size_t done = 0;
  while (done < bytes.size()) {  // crc32() takes at most a uInt at a time
    const size_t piece = std::min<size_t>(bytes.size() - done, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), uInt(piece));
    done += piece;
  }
  return crc;
}

// The call number of writeCheckpointFile() that crashes (test hook), or 0.
int crashAtCall() {
  const char* text = std::getenv("TETRAD_TEST_CHECKPOINT_CRASH");
  return text ? std::atoi(text) : 0;
}

ByteBuffer readWholeFile(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  TETRAD_CHECK(fd >= 0, InvalidArgument, "cannot read checkpoint {}: {}", path,
               std::strerror(errno));
  struct stat info {};
  if (::fstat(fd, &info) != 0) {
    const int error = errno;
    ::close(fd);
    TETRAD_FAIL(InvalidArgument, "cannot read checkpoint {}: {}", path, std::strerror(error));
  }
  ByteBuffer bytes(size_t(info.st_size));
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::read(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // shorter than fstat said: the size check names it
    done += size_t(n);
  }
  ::close(fd);
  bytes.resize(done);
  return bytes;
}

}  // namespace

void CheckpointSections::put(std::string name, ByteBuffer value) {
  for (auto& [existing, bytes] : items_) {
    if (existing == name) {
      bytes = std::move(value);
      return;
    }
  }
  items_.emplace_back(std::move(name), std::move(value));
}

void CheckpointSections::putText(std::string name, std::string_view text) {
  const auto bytes = std::as_bytes(std::span(text.data(), text.size()));
  put(std::move(name), ByteBuffer(bytes.begin(), bytes.end()));
}

bool CheckpointSections::has(std::string_view name) const {
  for (const auto& item : items_) {
    if (item.first == name) return true;
  }
  return false;
}

ConstBytes CheckpointSections::get(std::string_view name, std::string_view origin) const {
  for (const auto& [existing, bytes] : items_) {
    if (existing == name) return ConstBytes(bytes);
  }
  TETRAD_FAIL(InvalidArgument, "checkpoint {} has no section '{}' (written by another version?)",
              origin, name);
}

std::string CheckpointSections::getText(std::string_view name, std::string_view origin) const {
  const ConstBytes bytes = get(name, origin);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

void writeFileSynced(const std::string& path, std::span<const ConstBytes> pieces) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  TETRAD_CHECK(fd >= 0, Error, "cannot create {}: {}", path, std::strerror(errno));
  for (ConstBytes piece : pieces) {
    size_t done = 0;
    while (done < piece.size()) {
      const ssize_t n = ::write(fd, piece.data() + done, piece.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : ENOSPC;
        ::close(fd);
        TETRAD_FAIL(Error, "cannot write {}: {}", path, std::strerror(error));
      }
      done += size_t(n);
    }
  }
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  ::close(fd);
  TETRAD_CHECK(synced, Error, "cannot flush {} to disk: {}", path, std::strerror(error));
}

void writeCheckpointFile(const std::string& path, const CheckpointSections& sections) {
  // The file as a list of pieces: the sections' bytes are written where
  // they are (a checkpoint is mostly parameters and optimizer state: no
  // copy of them), the small headers between them from `heads`.
  std::vector<ByteBuffer> heads;
  heads.reserve(sections.items().size() + 2);
  std::vector<ConstBytes> pieces;
  ByteBuffer& count = heads.emplace_back();  // (heads never reallocates: reserved)
  count.reserve(sizeof(uint32_t));
  ByteWriter(count).put<uint32_t>(uint32_t(sections.items().size()));
  pieces.push_back(count);
  for (const auto& [name, bytes] : sections.items()) {
    ByteBuffer& head = heads.emplace_back();
    head.reserve(sizeof(uint32_t) + name.size() + sizeof(uint64_t));
    ByteWriter writer(head);
    writer.put<uint32_t>(uint32_t(name.size()));
    writer.putBytes(std::as_bytes(std::span(name.data(), name.size())));
    writer.put<uint64_t>(bytes.size());
    pieces.push_back(head);
    pieces.push_back(bytes);
  }
  uint64_t payloadBytes = 0;
  uLong crc = crc32(0L, Z_NULL, 0);
  for (ConstBytes piece : pieces) {
    payloadBytes += piece.size();
    crc = crcOf(piece, crc);
  }
  ByteBuffer& header = heads.emplace_back();
  header.reserve(kHeaderBytes);
  ByteWriter out(header);
  out.putBytes(std::as_bytes(std::span(kMagic)));
  out.put<uint32_t>(kVersion);
  out.put<uint64_t>(payloadBytes);
  out.put<uint32_t>(uint32_t(crc));
  pieces.insert(pieces.begin(), header);

  static std::atomic<int> calls{0};
  const std::string temporary = path + ".tmp";
  if (++calls == crashAtCall()) {
    std::vector<ConstBytes> half;
    size_t left = (kHeaderBytes + payloadBytes) / 2;
    for (ConstBytes piece : pieces) {
      half.push_back(piece.first(std::min(left, piece.size())));
      left -= half.back().size();
    }
    writeFileSynced(temporary, half);
    std::fprintf(stderr,
                 "tetrad: TETRAD_TEST_CHECKPOINT_CRASH: ending the process while %s "
                 "is half written\n",
                 temporary.c_str());
    std::fflush(stderr);
    ::_exit(86);
  }
  writeFileSynced(temporary, pieces);
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  TETRAD_CHECK(!ec, Error, "cannot rename {} to {}: {}", temporary, path, ec.message());
}

CheckpointSections readCheckpointFile(const std::string& path) {
  const ByteBuffer raw = readWholeFile(path);
  const ConstBytes file(raw);
  TETRAD_CHECK(file.size() >= kHeaderBytes && std::memcmp(file.data(), kMagic, sizeof(kMagic)) == 0,
               InvalidArgument, "checkpoint {} is damaged: not a tetrad checkpoint ({} bytes)",
               path, file.size());
  ByteReader header(file.subspan(sizeof(kMagic), kHeaderBytes - sizeof(kMagic)));
  const auto version = header.get<uint32_t>("version");
  const auto length = header.get<uint64_t>("payload length");
  const auto crc = header.get<uint32_t>("checksum");
  TETRAD_CHECK(version == kVersion, InvalidArgument,
               "checkpoint {} has format version {}; this tetrad reads version {}", path, version,
               kVersion);
  TETRAD_CHECK(length == file.size() - kHeaderBytes, InvalidArgument,
               "checkpoint {} is damaged: {} payload bytes where the header says {} (truncated?)",
               path, file.size() - kHeaderBytes, length);
  const ConstBytes payload = file.subspan(kHeaderBytes);
  TETRAD_CHECK(uint32_t(crcOf(payload)) == crc, InvalidArgument,
               "checkpoint {} is damaged: checksum mismatch (CRC-32 {:08x}, expected {:08x})", path,
               uint32_t(crcOf(payload)), crc);
  CheckpointSections sections;
  try {
    ByteReader reader(payload);
    const auto count = reader.get<uint32_t>("section count");
    for (uint32_t i = 0; i < count; ++i) {
      const auto nameBytes = reader.get<uint32_t>("section name length");
      const ConstBytes name = reader.getBytes(nameBytes, "section name");
      const auto valueBytes = reader.get<uint64_t>("section length");
      const ConstBytes value = reader.getBytes(size_t(valueBytes), "section");
      sections.put(std::string(reinterpret_cast<const char*>(name.data()), name.size()),
                   ByteBuffer(value.begin(), value.end()));
    }
    reader.expectEnd("sections");
  } catch (const ProtocolError& e) {
    TETRAD_FAIL(InvalidArgument, "checkpoint {} is damaged: {}", path, e.what());
  }
  return sections;
}

}  // namespace tetrad::train
