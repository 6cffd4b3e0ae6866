#include "tetrad/arch/ps/ps_protocol.h"

#include "tetrad/core/error.h"

namespace tetrad::ps {

void writeRequestHeader(ByteWriter& writer, const RequestHeader& header) {
  writer.put(static_cast<uint8_t>(header.kind));
  writer.put(header.stream);
  writer.put(uint16_t{0});
  writer.put(header.partition);
  writer.put(header.clock);
}

RequestHeader readRequestHeader(ByteReader& reader) {
  RequestHeader header;
  const auto kind = reader.get<uint8_t>("request kind");
  TETRAD_CHECK(kind >= uint8_t(RequestKind::kInit) && kind <= uint8_t(RequestKind::kRestore),
               ProtocolError, "unknown request kind {}", kind);
  header.kind = RequestKind(kind);
  header.stream = reader.get<uint8_t>("stream");
  TETRAD_CHECK(reader.get<uint16_t>("reserved") == 0, ProtocolError, "reserved bits set");
  header.partition = reader.get<uint32_t>("partition");
  header.clock = reader.get<int64_t>("clock");
  TETRAD_CHECK(header.clock >= 0, ProtocolError, "negative clock {}", header.clock);
  return header;
}

void writeReplyHeader(ByteWriter& writer, const ReplyHeader& header) {
  writer.put(header.partition);
  writer.put(uint8_t(header.stop ? 1 : 0));
  writer.put(uint8_t{0});
  writer.put(uint16_t{0});
  writer.put(header.updatesApplied);
  writer.put(header.staleness);
}

ReplyHeader readReplyHeader(ByteReader& reader) {
  ReplyHeader header;
  header.partition = reader.get<uint32_t>("partition");
  const auto stop = reader.get<uint8_t>("stop flag");
  TETRAD_CHECK(stop <= 1, ProtocolError, "stop flag {}", stop);
  header.stop = stop == 1;
  TETRAD_CHECK(reader.get<uint8_t>("reserved") == 0 && reader.get<uint16_t>("reserved") == 0,
               ProtocolError, "reserved bits set");
  header.updatesApplied = reader.get<int64_t>("updates applied");
  header.staleness = reader.get<int64_t>("staleness");
  TETRAD_CHECK(header.updatesApplied >= 0 && header.staleness >= -1, ProtocolError,
               "updates applied {} or staleness {} out of range", header.updatesApplied,
               header.staleness);
  return header;
}

}  // namespace tetrad::ps
