// CHOCO-Gossip step (see choco_gossip.h).
//
// Cost of one step at rank i with degree d_i, an n-float vector and a packet
// of P bytes (compressor.bitsPerElement(n)·n/8; P = 4n + 16 for `none`), on
// a star: the packet goes to all d_i neighbours at once, so
//   T = α + max_i d_i · P·β
//       + encode(n) + (d_i + 1)·decode(P) + (d_i + 2)·n multiply-adds.
// Bytes sent per rank and step: exactly d_i·P.
//
// Order of arithmetic: x̂_j += decode(q_j) in ascending j (each copy on its
// own); the correction acc = Σ_{j ∈ N_i} w_ij·(x̂_j - x̂_i) is summed by
// ascending j in float32, then x_i += γ·acc.
#include "tetrad/arch/gossip/choco_gossip.h"

#include <algorithm>
#include <cstring>
#include <memory>

#include "tetrad/collectives/collective_options.h"
#include "tetrad/collectives/reduce_ops.h"
#include "tetrad/collectives/scratch.h"
#include "tetrad/core/error.h"
#include "tetrad/core/fixed_byte_writer.h"

namespace tetrad {
namespace {

constexpr uint32_t kChocoMagic = 0x434f4843;  // "CHOC"
constexpr uint32_t kChocoVersion = 1;

void checkState(const Topology& topology, int rank, std::span<const float> x,
                const ChocoState& state) {
  TETRAD_CHECK(state.rank == rank, InvalidArgument, "CHOCO state of rank {} used by rank {}",
               state.rank, rank);
  const std::span<const int> peers = topology.neighbours(rank, 0);
  bool same =
      state.ranks.size() == peers.size() + 1 && state.publicCopies.size() == state.ranks.size();
  for (size_t k = 0, p = 0; same && k < state.ranks.size(); ++k) {
    if (state.ranks[k] == rank) continue;
    same = p < peers.size() && state.ranks[k] == peers[p++];
  }
  TETRAD_CHECK(same, InvalidArgument,
               "CHOCO state of rank {} holds {} public copies, topology '{}' gives {} neighbours",
               rank, state.ranks.size(), topology.spec(), peers.size());
  for (const std::vector<float>& copy : state.publicCopies) {
    TETRAD_CHECK(copy.size() == x.size(), InvalidArgument,
                 "CHOCO state of rank {} is for {} floats, the vector has {}", rank, copy.size(),
                 x.size());
  }
}

}  // namespace

std::span<const float> ChocoState::publicCopy(int peer) const {
  for (size_t k = 0; k < ranks.size(); ++k) {
    if (ranks[k] == peer) return publicCopies[k];
  }
  TETRAD_FAIL(InvalidArgument, "CHOCO state of rank {} has no public copy of rank {}", rank, peer);
}

ChocoState makeChocoState(const Topology& topology, int rank, size_t count, uint64_t seed) {
  TETRAD_CHECK(!topology.timeVarying(), Unsupported,
               "CHOCO-SGD on the time-varying topology '{}' is not supported (public copies "
               "need the same neighbours at every step)",
               topology.spec());
  ChocoState state;
  state.rank = rank;
  const std::span<const int> peers = topology.neighbours(rank, 0);
  state.ranks.assign(peers.begin(), peers.end());
  state.ranks.insert(std::lower_bound(state.ranks.begin(), state.ranks.end(), rank), rank);
  state.publicCopies.assign(state.ranks.size(), std::vector<float>(count, 0.0f));
  state.compressor.seed = seed;
  state.compressor.rank = rank;
  return state;
}

void chocoGossipStep(Transport& transport, const Topology& topology, std::span<float> x,
                     const Compressor& compressor, ChocoState& state, const ChocoOptions& options) {
  const int rank = transport.rank();
  detail::runWithContext(
      [&] {
        TETRAD_CHECK(options.gamma > 0 && options.gamma <= 1, InvalidArgument,
                     "consensus step size gamma must be in (0, 1], got {}", options.gamma);
        TETRAD_CHECK(!topology.timeVarying(), Unsupported,
                     "time-varying topologies are not supported by CHOCO-SGD");
        TETRAD_CHECK(topology.size() == transport.size(), InvalidArgument,
                     "the topology has {} ranks, the world {}", topology.size(), transport.size());
        checkGossipTag(options.gossip.tag, "CHOCO gossip");
        checkState(topology, rank, x, state);
        const size_t n = x.size();
        const std::span<const int> peers = topology.neighbours(rank, 0);
        const auto self = static_cast<size_t>(
            std::find(state.ranks.begin(), state.ranks.end(), rank) - state.ranks.begin());
        std::vector<float>& mine = state.publicCopies[self];

        // q_i = Q(x_i - x̂_i), sent to every neighbour.
        detail::Scratch scratch(n);
        std::span<float> work = scratch.span();
        for (size_t k = 0; k < n; ++k) work[k] = x[k] - mine[k];
        const Packet packet = timeCodec(compressor.isIdentity() ? nullptr : options.codec,
                                        [&] { return compressor.encode(work, state.compressor); });
        chargeModelled(options.codec, compressor, CodecWork::kEncode, n);
        chargeModelled(options.codec, compressor, CodecWork::kDecode, n, double(peers.size() + 1));
        std::vector<RequestPtr> sends;
        for (int peer : peers)
          sends.push_back(transport.isend(peer, options.gossip.tag, packet.bytes));
        const bool compute = computesOnData(transport);
        if (compute)
          timeCodec(compressor.isIdentity() ? nullptr : options.codec,
                    [&] { compressor.decodeAdd(packet.bytes, mine); });
        // x̂_j += decode(q_j), neighbours in ascending order.
        for (size_t k = 0; k < state.ranks.size(); ++k) {
          if (k == self) continue;
          const int peer = state.ranks[k];
          const ByteBuffer bytes = transport.recvMessage(peer, options.gossip.tag);
          if (!compute) continue;
          try {
            timeCodec(compressor.isIdentity() ? nullptr : options.codec,
                      [&] { compressor.decodeAdd(bytes, state.publicCopies[k]); });
          } catch (const Error&) {
            rethrowWithPrefix(fmt::format("packet of {} bytes from rank {}: ", bytes.size(), peer));
          }
        }
        waitAll(sends);
        ++state.steps;
        if (!compute || peers.empty()) return;
        // x_i += γ Σ_j w_ij (x̂_j - x̂_i).
        std::fill(work.begin(), work.end(), 0.0f);
        const std::vector<MixingWeight> row = topology.mixingRow(rank, 0);
        for (size_t k = 0; k < row.size(); ++k) {
          if (row[k].rank == rank) continue;
          const float w = static_cast<float>(row[k].weight);
          const float* theirs = state.publicCopies[k].data();  // row and ranks align
          for (size_t e = 0; e < n; ++e) work[e] += w * (theirs[e] - mine[e]);
        }
        const float gamma = static_cast<float>(options.gamma);
        for (size_t e = 0; e < n; ++e) x[e] += gamma * work[e];
      },
      [&] {
        return fmt::format("CHOCO gossip on '{}' with '{}' (rank {}, step {}, {} floats)",
                           topology.spec(), compressor.spec(), rank, state.steps, x.size());
      });
}

ByteBuffer ChocoState::serialize() const {
  const ByteBuffer inner = compressor.serialize();
  const size_t size = 4 + 4 + 4 + 8 + 8 + 4 + ranks.size() * (4 + 4 * count()) + 8 + inner.size();
  ByteBuffer out(size);
  FixedByteWriter writer(out);
  auto put = [&writer](const void* data, size_t bytes) { writer.putBytes(data, bytes); };
  auto putValue = [&writer](auto value) { writer.put(value); };
  putValue(kChocoMagic);
  putValue(kChocoVersion);
  putValue(static_cast<int32_t>(rank));
  putValue(steps);
  putValue(static_cast<uint64_t>(count()));
  putValue(static_cast<uint32_t>(ranks.size()));
  for (size_t k = 0; k < ranks.size(); ++k) {
    putValue(static_cast<int32_t>(ranks[k]));
    put(publicCopies[k].data(), 4 * publicCopies[k].size());
  }
  putValue(static_cast<uint64_t>(inner.size()));
  put(inner.data(), inner.size());
  return out;
}

ChocoState ChocoState::deserialize(ConstBytes bytes) {
  ByteReader reader(bytes);
  TETRAD_CHECK(reader.get<uint32_t>("CHOCO state magic") == kChocoMagic, ProtocolError,
               "not a CHOCO state (bad magic)");
  const auto version = reader.get<uint32_t>("CHOCO state version");
  TETRAD_CHECK(version == kChocoVersion, ProtocolError, "CHOCO state version {} (expected {})",
               version, kChocoVersion);
  ChocoState state;
  state.rank = reader.get<int32_t>("CHOCO rank");
  state.steps = reader.get<int64_t>("CHOCO steps");
  const auto count = reader.get<uint64_t>("CHOCO count");
  const auto copies = reader.get<uint32_t>("CHOCO copies");
  TETRAD_CHECK(count <= reader.remaining() / 4 && copies <= reader.remaining(), ProtocolError,
               "CHOCO state claims {} copies of {} floats, {} bytes left", copies, count,
               reader.remaining());
  for (uint32_t k = 0; k < copies; ++k) {
    state.ranks.push_back(reader.get<int32_t>("CHOCO copy rank"));
    ConstBytes values = reader.getBytes(count * 4, "CHOCO public copy");
    std::vector<float>& copy = state.publicCopies.emplace_back(count);
    std::memcpy(copy.data(), values.data(), values.size());
  }
  const auto inner = reader.get<uint64_t>("CHOCO compressor state size");
  TETRAD_CHECK(inner <= reader.remaining(), ProtocolError,
               "CHOCO compressor state of {} bytes, {} left", inner, reader.remaining());
  state.compressor = CompressorState::deserialize(reader.getBytes(inner, "compressor state"));
  reader.expectEnd("CHOCO state");
  return state;
}

}  // namespace tetrad
