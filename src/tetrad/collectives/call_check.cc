// Collective call checks (call_check.h).
// Cost per checked call on p ranks: ⌈log2 p⌉·α + (p-1)·96·β (recursive-
// doubling all-gather of 96-byte fingerprints; +2α + 96(p+1)β when p is not
// a power of two).
#include "tetrad/collectives/call_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "tetrad/collectives/building_blocks.h"
#include "tetrad/core/bytes.h"
#include "tetrad/core/error.h"
#include "tetrad/core/fixed_byte_writer.h"

namespace tetrad {
namespace {

constexpr size_t kAlgorithmBytes = 24;
constexpr size_t kElementBytes = 40;
// tag, detail, length, sequence, then the two fixed-size texts.
constexpr size_t kRecordBytes = 4 + 4 + 8 + 8 + 8 + kAlgorithmBytes + kElementBytes;
static_assert(kRecordBytes == 96);

constexpr std::string_view kOperations[] = {"all-reduce", "all-gather",       "byte all-gather",
                                            "broadcast",  "reduce-scatter",   "barrier",
                                            "aggregate",  "exchange average", "model mix"};

uint32_t operationCode(std::string_view operation) {
  for (size_t i = 0; i < std::size(kOperations); ++i) {
    if (kOperations[i] == operation) return uint32_t(i + 1);
  }
  return 0;
}

void putText(FixedByteWriter& writer, std::string_view text, size_t bytes) {
  char field[kElementBytes] = {};
  std::memcpy(field, text.data(), std::min(text.size(), bytes - 1));
  writer.putBytes(field, bytes);
}

std::string getText(ByteReader& reader, size_t bytes) {
  ConstBytes field = reader.getBytes(bytes, "call fingerprint text");
  const char* chars = reinterpret_cast<const char*>(field.data());
  return std::string(chars, strnlen(chars, bytes));
}

void encode(const CallFingerprint& call, MutableBytes out) {
  FixedByteWriter writer(out);
  writer.put<uint32_t>(operationCode(call.operation));
  writer.put<uint32_t>(call.tag);
  writer.put<int64_t>(call.detail);
  writer.put<uint64_t>(call.length);
  writer.put<uint64_t>(call.sequence);
  putText(writer, call.algorithm, kAlgorithmBytes);
  putText(writer, call.elementType, kElementBytes);
}

CallFingerprint decode(ConstBytes in) {
  ByteReader reader(in);
  CallFingerprint call;
  const uint32_t code = reader.get<uint32_t>("call operation");
  call.operation = code >= 1 && code <= std::size(kOperations) ? std::string(kOperations[code - 1])
                                                               : fmt::format("operation-{}", code);
  call.tag = reader.get<uint32_t>("call tag");
  call.detail = reader.get<int64_t>("call detail");
  call.length = reader.get<uint64_t>("call length");
  call.sequence = reader.get<uint64_t>("call sequence");
  call.algorithm = getText(reader, kAlgorithmBytes);
  call.elementType = getText(reader, kElementBytes);
  reader.expectEnd("call fingerprint");
  return call;
}

}  // namespace

std::string describe(const CallFingerprint& call, bool withSequence) {
  const std::string detail = call.operation == "broadcast" ? fmt::format(", root {}", call.detail)
                             : call.operation == "exchange average"
                                 ? fmt::format(", bucket {} of the {}", call.detail / 2,
                                               call.detail % 2 ? "model changes" : "gradients")
                             : call.operation == "model mix" ? fmt::format(", step {}", call.detail)
                             : (call.operation == "all-reduce" ||
                                call.operation == "reduce-scatter" || call.operation == "aggregate")
                                 ? (call.detail == 0 ? ", sum" : ", average")
                                 : std::string();
  const std::string sequence = withSequence ? fmt::format(" #{}", call.sequence) : std::string();
  return fmt::format("{}{} ({}, {} x {}{}, tag {})", call.operation, sequence, call.algorithm,
                     call.length, call.elementType, detail, call.tag);
}

void agreeOnCall(Transport& transport, const CallFingerprint& call) {
  const int p = transport.size();
  if (p == 1 || !transport.carriesPayload()) return;
  std::vector<std::byte> records(kRecordBytes * size_t(p));
  std::vector<BlockRange> blocks(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) blocks[r] = BlockRange{kRecordBytes * size_t(r), kRecordBytes};
  const MutableBytes all(records);
  encode(call, all.subspan(blocks[transport.rank()].offset, kRecordBytes));
  const Tag checkTag = call.tag + kCallCheckTagOffset;
  try {
    detail::allgathervRecursiveDoubling(transport, all, blocks, checkTag);
  } catch (const Error&) {
    rethrowWithPrefix(fmt::format("rank {} of {}: call check of {} (tags {}..{}): ",
                                  transport.rank(), p, describe(call), checkTag, checkTag + 2));
  }
  const std::string first = describe(decode(ConstBytes(all.subspan(0, kRecordBytes))));
  for (int r = 1; r < p; ++r) {
    const ConstBytes record = ConstBytes(all.subspan(blocks[r].offset, kRecordBytes));
    if (std::equal(record.begin(), record.end(), records.begin())) continue;
    TETRAD_FAIL(ProtocolError,
                "rank {}: collective call mismatch: rank 0 calls {} but rank {} calls {}",
                transport.rank(), first, r, describe(decode(record)));
  }
}

CollectiveScope::CollectiveScope(Transport& transport, CallFingerprint call, Tag span) {
  Diagnostics& diagnostics = transport.diagnostics();
  // A call on one rank has nobody to agree with, and must not take a
  // sequence number: a one-rank view shares its parent's diagnostics, so
  // (rank 0 evaluating alone on a tag the workers later use together) its
  // count would run ahead of the other ranks'.
  const bool check = diagnostics.checkCollectives() && transport.size() > 1;
  if (check) call.sequence = diagnostics.nextSequence(call.tag);
  label_.emplace(transport, call.tag, span, describe(call, check));
  if (check) agreeOnCall(transport, call);
}

}  // namespace tetrad
