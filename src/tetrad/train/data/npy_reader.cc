// NPY reader and writer (npy_reader.h). The header literal is parsed by a
// small hand-written scanner over its exact grammar (no Python evaluation).
#include "tetrad/train/data/npy_reader.h"

#include <fmt/ranges.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string_view>

#include "tetrad/core/error.h"

namespace tetrad::train {
namespace {

constexpr std::string_view kMagic = "\x93NUMPY";
// Refuse anything larger as corrupt (well above any dataset tetrad trains on).
constexpr uint64_t kMaxDataBytes = uint64_t{16} << 30;
constexpr uint32_t kMaxHeaderBytes = 1u << 20;
constexpr size_t kMaxRank = 32;

// Scans the header dict literal; every failure names the file and the spot.
class HeaderScanner {
 public:
  HeaderScanner(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  void skipSpaces() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t')) ++at_;
  }
  bool consume(char c) {
    skipSpaces();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  void expect(char c, const char* what) {
    if (!consume(c)) fail(fmt::format("expected '{}' {}", c, what));
  }
  std::string quoted() {
    skipSpaces();
    if (at_ >= text_.size() || (text_[at_] != '\'' && text_[at_] != '"')) {
      fail("expected a quoted string");
    }
    const char quote = text_[at_++];
    const size_t end = text_.find(quote, at_);
    if (end == std::string_view::npos) fail("unterminated string");
    std::string out(text_.substr(at_, end - at_));
    at_ = end + 1;
    return out;
  }
  bool boolean() {
    skipSpaces();
    for (auto [word, value] : {std::pair{std::string_view("True"), true}, {"False", false}}) {
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return value;
      }
    }
    fail("expected True or False");
  }
  std::vector<uint64_t> tuple() {
    expect('(', "to open the shape");
    std::vector<uint64_t> dims;
    while (!consume(')')) {
      skipSpaces();
      size_t start = at_;
      uint64_t value = 0;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
        const uint64_t digit = uint64_t(text_[at_] - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10)
          fail("dimension overflows");
        value = value * 10 + digit;
        ++at_;
      }
      if (at_ == start) fail("expected a non-negative integer dimension");
      if (dims.size() == kMaxRank) fail(fmt::format("more than {} dimensions", kMaxRank));
      dims.push_back(value);
      if (!consume(',')) {
        expect(')', "to close the shape");
        break;
      }
    }
    return dims;
  }
  bool atEnd() {
    skipSpaces();
    return at_ == text_.size();
  }
  [[noreturn]] void fail(const std::string& what) const {
    TETRAD_FAIL(InvalidArgument, "NPY file '{}': malformed header at byte {}: {}", path_, at_,
                what);
  }

 private:
  std::string_view text_;
  const std::string& path_;
  size_t at_ = 0;
};

NpyType parseDescr(const std::string& descr, const std::string& path) {
  if (descr == "|u1") return NpyType::kUint8;
  if (descr == "<i8") return NpyType::kInt64;
  if (descr == "<f4") return NpyType::kFloat32;
  TETRAD_FAIL(InvalidArgument,
              "NPY file '{}': dtype '{}' is not supported (uint8 '|u1', int64 '<i8' or float32 "
              "'<f4', little-endian)",
              path, descr);
}

}  // namespace

uint64_t NpyArray::count() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string toString(NpyType type) {
  switch (type) {
    case NpyType::kUint8:
      return "uint8";
    case NpyType::kInt64:
      return "int64";
    case NpyType::kFloat32:
      return "float32";
  }
  return "?";
}

NpyArray parseNpy(ConstBytes bytes, const std::string& path) {
  ByteReader reader(bytes);
  try {
    ConstBytes magic = reader.getBytes(kMagic.size(), "magic");
    TETRAD_CHECK(std::memcmp(magic.data(), kMagic.data(), kMagic.size()) == 0, InvalidArgument,
                 "NPY file '{}': not an NPY file (wrong magic)", path);
    const auto major = reader.get<uint8_t>("major version");
    const auto minor = reader.get<uint8_t>("minor version");
    TETRAD_CHECK((major == 1 || major == 2 || major == 3) && minor == 0, InvalidArgument,
                 "NPY file '{}': version {}.{} is not supported (1.0, 2.0, 3.0)", path, major,
                 minor);
    const uint32_t headerBytes =
        major == 1 ? reader.get<uint16_t>("header length") : reader.get<uint32_t>("header length");
    TETRAD_CHECK(headerBytes <= kMaxHeaderBytes, InvalidArgument,
                 "NPY file '{}': header of {} bytes is too long", path, headerBytes);
    ConstBytes header = reader.getBytes(headerBytes, "header");
    std::string_view text(reinterpret_cast<const char*>(header.data()), header.size());
    TETRAD_CHECK(!text.empty() && text.back() == '\n', InvalidArgument,
                 "NPY file '{}': header does not end with a newline", path);
    text.remove_suffix(1);
    HeaderScanner scan(text, path);
    std::string descr;
    bool fortran = false, haveDescr = false, haveFortran = false, haveShape = false;
    NpyArray array;
    scan.expect('{', "to open the header");
    while (!scan.consume('}')) {
      const std::string key = scan.quoted();
      scan.expect(':', "after a key");
      if (key == "descr" && !haveDescr) {
        descr = scan.quoted();
        haveDescr = true;
      } else if (key == "fortran_order" && !haveFortran) {
        fortran = scan.boolean();
        haveFortran = true;
      } else if (key == "shape" && !haveShape) {
        array.shape = scan.tuple();
        haveShape = true;
      } else {
        scan.fail(fmt::format("unexpected or repeated key '{}'", key));
      }
      if (!scan.consume(',')) {
        scan.expect('}', "to close the header");
        break;
      }
    }
    if (!scan.atEnd()) scan.fail("text after the header's closing brace");
    TETRAD_CHECK(haveDescr && haveFortran && haveShape, InvalidArgument,
                 "NPY file '{}': header lacks {}", path,
                 !haveDescr     ? "'descr'"
                 : !haveFortran ? "'fortran_order'"
                                : "'shape'");
    array.type = parseDescr(descr, path);
    TETRAD_CHECK(!fortran, InvalidArgument,
                 "NPY file '{}': Fortran order is not supported (save a C-ordered array, e.g. "
                 "numpy.ascontiguousarray)",
                 path);
    uint64_t count = 1;
    for (uint64_t d : array.shape) {
      TETRAD_CHECK(d == 0 || count <= kMaxDataBytes / d, InvalidArgument,
                   "NPY file '{}': shape too large", path);
      count *= d;
    }
    TETRAD_CHECK(count <= kMaxDataBytes / array.itemSize(), InvalidArgument,
                 "NPY file '{}': shape too large", path);
    const uint64_t dataBytes = count * array.itemSize();
    TETRAD_CHECK(reader.remaining() == dataBytes, InvalidArgument,
                 "NPY file '{}': {} bytes of data for shape {} of {} ({} expected){}", path,
                 reader.remaining(), fmt::join(array.shape, "x"), toString(array.type), dataBytes,
                 reader.remaining() < dataBytes ? "; the file is truncated" : "");
    ConstBytes data = reader.getBytes(dataBytes, "data");
    array.data.assign(data.begin(), data.end());
    return array;
  } catch (const ProtocolError& error) {  // ByteReader: ran past the end
    TETRAD_FAIL(InvalidArgument, "NPY file '{}' is truncated: {}", path, error.what());
  }
}

NpyArray readNpyFile(const std::string& path) {
  std::error_code ec;
  TETRAD_CHECK(std::filesystem::is_regular_file(path, ec), InvalidArgument,
               "NPY file '{}' is missing", path);
  std::ifstream in(path, std::ios::binary);
  TETRAD_CHECK(in.good(), InvalidArgument, "cannot open NPY file '{}'", path);
  std::vector<char> raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ByteBuffer bytes(raw.size());
  std::memcpy(bytes.data(), raw.data(), raw.size());
  return parseNpy(bytes, path);
}

void writeNpyFile(const std::string& path, const NpyArray& array) {
  const char* descr = array.type == NpyType::kUint8   ? "|u1"
                      : array.type == NpyType::kInt64 ? "<i8"
                                                      : "<f4";
  std::string shape = "(";
  for (uint64_t d : array.shape) shape += std::to_string(d) + ",";
  shape += ")";
  std::string header =
      fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", descr, shape);
  // Pad so that magic + version + length + header is a multiple of 64.
  const size_t prefix = kMagic.size() + 2 + 2;
  header.append(63 - (prefix + header.size()) % 64, ' ');
  header.push_back('\n');
  TETRAD_CHECK(header.size() <= 0xffff, InvalidArgument, "NPY header too long for '{}'", path);
  std::ofstream out(path, std::ios::binary);
  TETRAD_CHECK(out.good(), InvalidArgument, "cannot write NPY file '{}'", path);
  out.write(kMagic.data(), std::streamsize(kMagic.size()));
  const char version[2] = {1, 0};
  out.write(version, 2);
  const uint16_t length = uint16_t(header.size());
  out.write(reinterpret_cast<const char*>(&length), 2);
  out.write(header.data(), std::streamsize(header.size()));
  out.write(reinterpret_cast<const char*>(array.data.data()), std::streamsize(array.data.size()));
  TETRAD_CHECK(out.good(), InvalidArgument, "cannot write NPY file '{}'", path);
}

}  // namespace tetrad::train
