#include "tetrad/train/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr char kMagic[8] = {'T', 'E', 'T', 'R', 'A', 'D', 'C', 'K'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderBytes = sizeof(kMagic) + 4 + 8 + 4;

uint32_t crcOf(ConstBytes bytes) {
  uLong crc = crc32(0L, Z_NULL, 0);
  size_t done = 0;
  while (done < bytes.size()) {  // crc32() takes at most a uInt at a time
    const size_t piece = std::min<size_t>(bytes.size() - done, 1u << 30);
    crc = crc32(crc, reinterpret_cast<const Bytef*>(bytes.data() + done), uInt(piece));
    done += piece;
  }
  return uint32_t(crc);
}

// The call number of writeCheckpointFile() that crashes (test hook), or 0.
int crashAtCall() {
  const char* text = std::getenv("TETRAD_TEST_CHECKPOINT_CRASH");
  return text ? std::atoi(text) : 0;
}

void writeAll(int fd, ConstBytes bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int error = errno;
      ::close(fd);
      TETRAD_FAIL(Error, "cannot write checkpoint {}: {}", path, std::strerror(error));
    }
    done += size_t(n);
  }
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

void writeCheckpointFile(const std::string& path, const CheckpointSections& sections) {
  ByteBuffer payload;
  payload.reserve(64);  // (also keeps GCC 12 from a false -Wstringop-overflow)
  ByteWriter body(payload);
  body.put<uint32_t>(uint32_t(sections.items().size()));
  for (const auto& [name, bytes] : sections.items()) {
    body.put<uint32_t>(uint32_t(name.size()));
    body.putBytes(std::as_bytes(std::span(name.data(), name.size())));
    body.put<uint64_t>(bytes.size());
    body.putBytes(bytes);
  }
  ByteBuffer file;
  file.reserve(kHeaderBytes + payload.size());
  ByteWriter out(file);
  out.putBytes(std::as_bytes(std::span(kMagic)));
  out.put<uint32_t>(kVersion);
  out.put<uint64_t>(payload.size());
  out.put<uint32_t>(crcOf(payload));
  out.putBytes(payload);

  static std::atomic<int> calls{0};
  const bool crash = ++calls == crashAtCall();
  const std::string temporary = path + ".tmp";
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  TETRAD_CHECK(fd >= 0, Error, "cannot create checkpoint {}: {}", temporary, std::strerror(errno));
  if (crash) {
    writeAll(fd, ConstBytes(file).first(file.size() / 2), temporary);
    std::fprintf(stderr, "tetrad: TETRAD_TEST_CHECKPOINT_CRASH: ending the process while %s "
                         "is half written\n", temporary.c_str());
    std::fflush(stderr);
    ::_exit(86);
  }
  writeAll(fd, file, temporary);
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  TETRAD_CHECK(synced, Error, "cannot flush checkpoint {} to disk: {}", temporary,
               std::strerror(errno));
  std::error_code ec;
  std::filesystem::rename(temporary, path, ec);
  TETRAD_CHECK(!ec, Error, "cannot rename {} to {}: {}", temporary, path, ec.message());
}

CheckpointSections readCheckpointFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  TETRAD_CHECK(in.good(), InvalidArgument, "cannot read checkpoint {}", path);
  const std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const ConstBytes file = std::as_bytes(std::span(raw));
  TETRAD_CHECK(file.size() >= kHeaderBytes &&
                   std::memcmp(file.data(), kMagic, sizeof(kMagic)) == 0,
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
  TETRAD_CHECK(crcOf(payload) == crc, InvalidArgument,
               "checkpoint {} is damaged: checksum mismatch (CRC-32 {:08x}, expected {:08x})", path,
               crcOf(payload), crc);
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
