#include "tetrad/arch/exchange.h"

#include "tetrad/core/error.h"

namespace tetrad {

PullResult Exchange::pushPull(std::span<const float>, std::span<float>) {
  TETRAD_FAIL(Unsupported, "--arch {} has no servers to push to and pull from", spec());
}

void Exchange::mixModels(std::span<float>, int64_t) {
  TETRAD_FAIL(Unsupported, "--arch {} averages, it does not mix models with neighbours", spec());
}

void Exchange::serve(ServerBooks*) {
  TETRAD_FAIL(Unsupported, "--arch {} has no server ranks", spec());
}

ByteBuffer Exchange::saveState() {
  TETRAD_FAIL(Unsupported, "--arch {}: checkpoints of this architecture are not yet supported",
              spec());
}

void Exchange::loadState(ConstBytes) {
  TETRAD_FAIL(Unsupported, "--arch {}: checkpoints of this architecture are not yet supported",
              spec());
}

ByteBuffer saveCompressorStates(std::span<const std::vector<CompressorState>> streams) {
  ByteBuffer bytes;
  bytes.reserve(sizeof(uint32_t) + streams.size() * sizeof(uint64_t));
  ByteWriter out(bytes);
  out.put<uint32_t>(uint32_t(streams.size()));
  for (const std::vector<CompressorState>& states : streams) {
    out.put<uint64_t>(states.size());
    for (const CompressorState& state : states) {
      const ByteBuffer one = state.serialize();
      out.put<uint64_t>(one.size());
      out.putBytes(one);
    }
  }
  return bytes;
}

void loadCompressorStates(ConstBytes bytes, std::span<std::vector<CompressorState>> streams,
                          std::string_view who) {
  ByteReader in(bytes);
  const auto streamCount = in.get<uint32_t>("stream count");
  TETRAD_CHECK(streamCount == streams.size(), InvalidArgument,
               "{}: the checkpoint holds {} compressor streams, this run has {}", who, streamCount,
               streams.size());
  for (std::vector<CompressorState>& states : streams) {
    const auto count = in.get<uint64_t>("unit count");
    TETRAD_CHECK(count == states.size(), InvalidArgument,
                 "{}: the checkpoint holds compressor states of {} units, this run's plan has {}",
                 who, count, states.size());
    for (CompressorState& state : states) {
      const auto length = in.get<uint64_t>("compressor state length");
      state = CompressorState::deserialize(in.getBytes(size_t(length), "compressor state"));
    }
  }
  in.expectEnd("compressor states");
}

void loadResizedCompressorStates(ConstBytes own, ConstBytes first,
                                 std::span<std::vector<CompressorState>> streams, int rank,
                                 std::string_view who) {
  if (!own.empty()) {
    loadCompressorStates(own, streams, who);
    return;
  }
  loadCompressorStates(first, streams, who);
  for (std::vector<CompressorState>& states : streams) {
    for (CompressorState& state : states) state.adoptForRank(rank);
  }
}

int64_t rebaseUpdates(int64_t count, int oldWorkers, int workers) {
  TETRAD_CHECK(oldWorkers >= 1 && workers >= 1 && count >= 0, InvalidArgument,
               "rebasing {} updates from {} to {} workers", count, oldWorkers, workers);
  return count / oldWorkers * workers + count % oldWorkers * workers / oldWorkers;
}

}  // namespace tetrad
