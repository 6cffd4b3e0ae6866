// Compressor: what goes on the wire for one gradient tensor.
//
// A compressor turns a float32 tensor into a Packet — a self-describing byte
// buffer whose size is exactly what is counted as sent — and adds a decoded
// packet back into a float span. Compressors are created from spec strings by
// the registry (compress/registry.h): "topk:0.01", "qsgd:16", "powersgd:2",
// with ",ef" for error feedback ("topk:0.01,ef").
//
// How packets aggregate across ranks is declared by aggregation():
//   kSummable  packets (or decoded tensors) can be summed by an all-reduce
//              (fp16/bf16 in the compressed domain, Random-k with shared
//              indices);
//   kGather    every rank's packet is all-gathered, decoded and summed
//              (Top-k, QSGD, TernGrad, ...);
//   kCustom    the compressor runs its own protocol over the collectives
//              (majority vote, gTop-k, PowerSGD), via aggregateCustom().
// compress/aggregate.h turns all three into one call.
//
// State: everything a compressor remembers between steps for one tensor
// (error-feedback residual, DGC momentum, PowerSGD's Q, the step counter that
// drives RNG streams) lives in an explicit CompressorState owned by the
// caller, one per tensor, so that it can be checkpointed (serialize()).
// Compressor objects themselves hold only their parameters and are
// const-callable from any thread; a CompressorState has one owner at a time.
//
// Steps: the entry points that consume a step — encode(), encodeSummable()
// and aggregateCustom() — are non-virtual. Each runs the compressor's own
// protected hook (encodeStep(), encodeSummableStep(), aggregateCustomStep())
// with state.step still the index of this step, then advances state.step by
// one, so that every call (and every aggregate(), compress/aggregate.h)
// consumes exactly one step and no compressor advances it itself. A hook that
// throws leaves state.step where it was (other state may be partly updated).
// Hooks never call the public entry points on their own state (that would
// advance the step twice): they call each other, and a compressor that wraps
// another (ErrorFeedback) calls the inner one's hooks through the protected
// static *Of() helpers, inside its own step.
//
// Decoding never trusts a packet: a truncated, oversized or hostile packet
// throws ProtocolError and never reads or writes out of bounds.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "tetrad/collectives/allreduce.h"
#include "tetrad/collectives/collective_options.h"
#include "tetrad/compress/codec_clock.h"
#include "tetrad/core/bytes.h"
#include "tetrad/core/float16.h"
#include "tetrad/transport/transport.h"

namespace tetrad {

enum class Aggregation { kSummable, kGather, kCustom };

// Wire header shared by every packet (16 bytes, little-endian):
//   u8 kind, u8 version (packetVersion(kind)), u16 flags, u32 reserved (0),
//   u64 element count,
// followed by the compressor's own parameters and payload.
struct PacketHeader {
  uint8_t kind = 0;
  uint8_t version = 1;
  uint16_t flags = 0;
  uint32_t reserved = 0;
  uint64_t count = 0;
};
constexpr size_t kPacketHeaderBytes = 16;

// Packet kinds on the wire; append only, never renumber.
enum class PacketKind : uint8_t {
  kNone = 1,
  kFp16 = 2,
  kBf16 = 3,
  kOneBit = 4,
  kSign = 5,
  kEfSign = 6,
  kTernGrad = 7,
  kQsgd = 8,
  kNatural = 9,
  kTopK = 10,
  kRandomK = 11,
  kThreshold = 12,
  kDgc = 13,
  kGTopK = 14,
  kPowerSgd = 15,
};

// The version of `kind`'s packets: 1, or 2 where the format changed
// (terngrad: one scale per tensor; qsgd: one norm per bucket of elements).
uint8_t packetVersion(PacketKind kind);
void writePacketHeader(ByteWriter& writer, PacketKind kind, uint64_t count, uint16_t flags = 0);
// Reads and validates the header: kind and version must match, the count must
// equal `expectedCount`. Throws ProtocolError otherwise.
PacketHeader readPacketHeader(ByteReader& reader, PacketKind kind, uint64_t expectedCount);

// What a custom aggregation protocol may use: its first tag (it may use
// [tag, tag + kAggregateTagSpan), see aggregate.h) and the all-reduce
// algorithm of the run, which protocols built on all-reduce (PowerSGD) use.
struct ProtocolOptions {
  Tag tag = 1000;
  AllreduceAlgorithm allreduce = AllreduceAlgorithm::kRing;
  const AllreduceSelector* selector = nullptr;  // kAuto's (allreduce_auto.h)
  CodecClock* codec = nullptr;  // timeCodec() around local arithmetic (codec_clock.h)
};

struct Packet {
  ByteBuffer bytes;
  size_t size() const { return bytes.size(); }
};

// Name of the error-feedback residual in CompressorState::buffers.
inline constexpr const char* kResidualBuffer = "residual";

// Per-tensor state; see the header comment.
struct CompressorState {
  // Shape of the tensor (empty: a flat vector). PowerSGD and per-column
  // 1-bit SGD view it as a matrix [shape[0], product of the rest].
  std::vector<int64_t> shape;
  // A fused bucket: the shapes of the tensors that lie one after another in
  // the flat vector, in order (their element counts add up to its length).
  // Empty: one tensor of `shape`. Batched PowerSGD keeps a matrix per tensor
  // (tensorsOf() below); every other compressor encodes the bucket as one
  // flat vector.
  std::vector<std::vector<int64_t>> layout;
  // Seed shared by all ranks (Random-k indices, PowerSGD's initial Q) and
  // this rank's id (mixed into private streams such as QSGD's rounding).
  uint64_t seed = 0;
  int rank = 0;
  // Number of steps consumed so far: calls of encode(), encodeSummable() and
  // aggregateCustom(), and of aggregate(); advanced only by those (see the
  // header comment), after the step ran.
  uint64_t step = 0;
  // Named float buffers: "residual", "momentum", "q", ...
  std::map<std::string, std::vector<float>> buffers;

  // Scratch, not checkpointed: the bytes of a packet handed back by
  // recyclePacket(), whose capacity the next encode writes into
  // (packet_alloc.h), so that large packets are not allocated every step.
  ByteBuffer spare;

  // Returns buffers[name], resized to `size` (zero-filled when created).
  std::vector<float>& buffer(const std::string& name, size_t size);

  ByteBuffer serialize() const;
  static CompressorState deserialize(ConstBytes bytes);  // throws ProtocolError

  // Makes another rank's state this `rank`'s, for a worker an elastic resize
  // added (docs/reliability.md): its id becomes `rank`, the buffers that
  // every rank holds alike (PowerSGD's "q") stay, this rank's private ones
  // (error-feedback residuals, DGC's and Signum's momenta) are zeroed, the
  // step count and shared seed stay (the ranks' streams stay in step).
  void adoptForRank(int newRank);
};

// One tensor of a (possibly fused) vector: its range and shape.
struct TensorPart {
  size_t offset = 0;  // in floats, into the vector
  size_t count = 0;
  std::vector<int64_t> shape;  // empty: a flat vector of `count`
};
// The tensors of a vector of `count` floats that `state` describes: its
// layout, else one tensor of state.shape (or flat). Throws InvalidArgument
// when the shapes do not add up to `count` or a dimension is negative.
std::vector<TensorPart> tensorsOf(const CompressorState& state, size_t count);

// Hands `packet`'s buffer back to `state` once its bytes are no longer
// needed (sent, copied or decoded), for the next encode to reuse.
inline void recyclePacket(Packet&& packet, CompressorState& state) {
  if (packet.bytes.capacity() > state.spare.capacity()) state.spare = std::move(packet.bytes);
}

// A tensor of 16-bit floats (a mixed-precision bucket: fp16 or bf16, 2 bytes
// per element in the machine's order, possibly unaligned), handed to a
// compressor as it is. The compressor's state stays float32. `scratch`, when
// it has size() floats, is where a compressor that does not read 16-bit
// values itself widens them (the caller's own float32 buffer, for example the
// one it decodes into next, so that one buffer stays in cache); otherwise a
// per-thread buffer is used.
struct HalfInput {
  ConstBytes bytes;
  HalfFormat format = HalfFormat::kFp16;
  std::span<float> scratch = {};
  size_t size() const { return bytes.size() / 2; }
};

class Compressor {
 public:
  virtual ~Compressor() = default;

  // Canonical spec string, e.g. "topk:0.01,ef".
  virtual std::string spec() const = 0;
  virtual Aggregation aggregation() const = 0;

  // Compresses `input`; may update `state` (residual, counters). Runs
  // encodeStep(), then advances state.step by one.
  Packet encode(std::span<const float> input, CompressorState& state) const;
  // Adds the tensor that `packet` encodes to `output` (whose size is the
  // element count). Throws ProtocolError on a malformed packet.
  virtual void decodeAdd(ConstBytes packet, std::span<float> output) const = 0;

  // Nominal wire bits per element for a tensor of `count` elements, header
  // included (for docs, tests and the analytic cost model).
  virtual double bitsPerElement(size_t count) const = 0;
  // The same for a bucket of `count` elements that `state` describes (its
  // layout): TernGrad sends one scale per tensor. Default: bitsPerElement().
  virtual double bucketBitsPerElement(const CompressorState& state, size_t count) const {
    (void)state;
    return bitsPerElement(count);
  }
  // True when E[decode(encode(x))] == x.
  virtual bool unbiased() const { return false; }
  // How the compressor enters the convergence theory's iteration multiplier
  // (model/iteration_theory.h, docs/convergence.md), declared here so that
  // the advisor knows a new compressor without its name:
  //   kExact          BSP's bound (none; fp16 and bf16 round only);
  //   kUnbiased       the unbiased bound with ω (measured by the advisor);
  //   kErrorFeedback  the error-feedback bound with δ (",ef", and compressors
  //                   with feedback of their own: onebit, efsign, PowerSGD,
  //                   DGC, gTop-k);
  //   kNotCovered     no theory (biased without feedback; signSGD's majority
  //                   vote, whose bounds are on the ℓ1 norm).
  // Default: kUnbiased when unbiased(), else kNotCovered.
  enum class Theory { kExact, kUnbiased, kErrorFeedback, kNotCovered };
  virtual Theory theory() const { return unbiased() ? Theory::kUnbiased : Theory::kNotCovered; }
  // A compressor whose packets shrink over its first steps (DGC's density
  // warm-up): the spec each warm-up phase prices like, in step order, with
  // how many steps (encode calls) it lasts; after them, this compressor's
  // own bitsPerElement(). Empty (the default): the same packets every step.
  // For the cost model, which charges a run's iterations phase by phase.
  struct WarmupPhase {
    std::string spec;
    int64_t steps = 0;
  };
  virtual std::vector<WarmupPhase> warmupPhases() const { return {}; }

  // kCustom only: aggregate `gradient` across all ranks of `transport` in
  // place (the result is the sum; aggregate() divides for the average).
  // Runs aggregateCustomStep(), then advances state.step by one; throws
  // Unsupported for a compressor without a protocol.
  void aggregateCustom(Transport& transport, std::span<float> gradient, CompressorState& state,
                       const ProtocolOptions& protocol) const;

  // kSummable only: the summable domain that aggregate() all-reduces.
  // encodeSummable() compresses `input` like encode() (updating `state` the
  // same way, one step) into floats whose element-wise sum over ranks
  // expandSummed() turns into the sum of every rank's decoded tensor, written
  // (not added) to `output`; `state` is as encodeSummable() left it (so
  // state.step is one past the step the values belong to; InvalidArgument
  // before any step). Defaults (aggregate.cc): the decoded tensor itself,
  // decode(encode(input)) as n floats, and a copy. Random-k overrides both
  // hooks so that only its k values travel.
  std::vector<float> encodeSummable(std::span<const float> input, CompressorState& state) const;
  // The same two steps on 16-bit input: bit for bit encode(x) and
  // encodeSummable(x) of x = float32(input), with the same state changes.
  // Compressors that say readsHalfInput() read the 16-bit values in their
  // own first pass; the others widen into input.scratch (or a per-thread
  // buffer) first.
  Packet encode(HalfInput input, CompressorState& state) const;
  std::vector<float> encodeSummable(HalfInput input, CompressorState& state) const;
  // True when encode(HalfInput) reads the 16-bit values in the compressor's
  // own first pass (no widened copy), so that a caller holding 16-bit input
  // should hand it over as it is; false when it would widen first anyway.
  virtual bool readsHalfInput() const { return false; }
  void expandSummed(std::span<const float> summed, const CompressorState& state,
                    std::span<float> output) const;
  // The error-feedback residual e that `state` carries into the next encode
  // (empty before the first encode, and for compressors without one).
  // Default: a copy of buffers[kResidualBuffer]. Compressors that keep the
  // residual in a deferred form (onebit, efsign) override it to materialise e.
  virtual std::vector<float> errorFeedbackResidual(const CompressorState& state) const;

  // How the compressor reads the shape of what it encodes (CompressorState
  // shape and layout), so that a caller cutting gradients into buckets (the
  // trainer, the Python DDP hook) knows what to hand it:
  //   kFlat       a flat vector; shapes are ignored (most compressors);
  //   kLayout     a fused bucket whose layout lists its tensors (PowerSGD:
  //               one matrix per tensor);
  //   kOneTensor  one tensor per state, with its shape (per-column 1-bit
  //               SGD; a fused layout of several tensors is Unsupported).
  enum class ShapeUse { kFlat, kLayout, kOneTensor };
  virtual ShapeUse shapeUse() const { return ShapeUse::kFlat; }
  // True only for the identity ("none"): decode(encode(x)) == x bit for bit
  // and the summable domain is the tensor itself, so aggregate() all-reduces
  // the gradient in place, without encoding into a copy (the aggregation
  // still consumes a step).
  virtual bool isIdentity() const { return false; }
  // True for the plain casts (fp16, bf16): encodeSummable(x) is x rounded to
  // summableWire()'s precision and expandSummed() a copy, so a tensor already
  // in that precision can be all-reduced as it is (the Python hook on a
  // float16 bucket) with the result of the encoded path.
  virtual bool isPlainCast() const { return false; }
  // kSummable only: the element type of the messages of that all-reduce
  // (collectives/collective_options.h). kFloat32 (the default) sends the
  // summable floats as they are; fp16 and bf16 return kFloat16 / kBFloat16,
  // so that their 16 bits per element really are what travels (partial sums
  // are rounded to 16 bits at each hop, accumulation is in float32).
  virtual WirePrecision summableWire() const { return WirePrecision::kFloat32; }
  // Decodes of a bucket one aggregate() call does on `ranks` ranks, for a
  // modelled codec charge (codec_clock.h): gather `ranks` (every rank's
  // packet, its own included), summable 1 (the summed domain), custom 1 (the
  // protocol's local arithmetic after its messages); the majority vote
  // counts `ranks` packets, gTop-k merges ⌈log2 ranks⌉ times.
  virtual double modelledDecodes(int ranks) const {
    return aggregation() == Aggregation::kGather ? double(ranks) : 1.0;
  }
  // kCustom only: how the protocol's messages travel, so that the cost model
  // (model/exchange_cost.cc) prices a protocol without knowing its name:
  //   kUnmodelled       no cost model (the default; the advisor says so);
  //   kPacketRing       p − 1 ring steps of one packet each, as a gather
  //                     (signSGD's majority vote);
  //   kAllreduceRounds  one float32 all-reduce per entry of
  //                     allreduceRoundFloats() (PowerSGD's P, then Q);
  //   kMergeTree        ⌈log2 q⌉ rounds of one packet each, q the largest
  //                     power of two ≤ p, plus 2 when p ≠ q (gTop-k).
  enum class ProtocolShape { kUnmodelled, kPacketRing, kAllreduceRounds, kMergeTree };
  virtual ProtocolShape protocolShape() const { return ProtocolShape::kUnmodelled; }
  // kAllreduceRounds: the floats of each all-reduce, in order, for a bucket
  // of `count` elements that `state` describes (shape, layout).
  virtual std::vector<size_t> allreduceRoundFloats(const CompressorState& state,
                                                   size_t count) const {
    (void)state;
    return {count};
  }
  // True when the packet's size depends on the values encoded (threshold,
  // Elias-coded QSGD): a timing-only run, which computes no values, cannot
  // price it.
  virtual bool packetSizeDependsOnData() const { return false; }
  // The momentum the compressor applies itself (DGC's momentum correction,
  // Signum's local momentum); 0 when none. SGD momentum on top would apply a
  // second one, so such runs use --momentum 0 (train/resolve_config.cc).
  virtual double ownMomentum() const { return 0; }
  // What the convergence theory's line adds about this compressor
  // (model/iteration_theory.cc): a caveat on its bound (gTop-k's δ is the
  // local selection's), or, under kNotCovered, why there is none (signSGD).
  // Empty by default.
  virtual std::string theoryNote() const { return ""; }
  // True when its encode and decode work is proportional to its first spec
  // parameter (PowerSGD's rank r: r passes over the bucket); a codec
  // profile then stores its cost per unit of it (model/codec_profile.h).
  virtual bool codecWorkScalesWithFirstParameter() const { return false; }

 protected:
  // The hooks behind the public entry points of the same name. While one
  // runs, state.step is the index of the step being taken (RNG streams and
  // schedules read it); the entry point advances it afterwards. They must not
  // call the public entry points on `state` (see the header comment).
  virtual Packet encodeStep(std::span<const float> input, CompressorState& state) const = 0;
  // Default (aggregate.cc): decode(encodeStep(input)) as n floats.
  virtual std::vector<float> encodeSummableStep(std::span<const float> input,
                                                CompressorState& state) const;
  // The 16-bit hooks behind encode(HalfInput) and encodeSummable(HalfInput).
  // Defaults (compressor.cc): widen into a per-thread scratch, then the
  // float32 hook.
  virtual Packet encodeHalfStep(HalfInput input, CompressorState& state) const;
  virtual std::vector<float> encodeSummableHalfStep(HalfInput input, CompressorState& state) const;
  // Default (compressor.cc): throws Unsupported.
  virtual void aggregateCustomStep(Transport& transport, std::span<float> gradient,
                                   CompressorState& state, const ProtocolOptions& protocol) const;
  // Expands the summed values of the step `step` (whose encodeSummableStep()
  // produced them); `state` is read-only, its step may be `step` (during the
  // step) or later. Default (aggregate.cc): a copy.
  virtual void expandSummedStep(std::span<const float> summed, const CompressorState& state,
                                uint64_t step, std::span<float> output) const;

  // For a compressor that wraps `inner` (ErrorFeedback): `inner`'s hooks,
  // run inside the wrapper's own step (they do not advance state.step).
  static Packet encodeStepOf(const Compressor& inner, std::span<const float> input,
                             CompressorState& state) {
    return inner.encodeStep(input, state);
  }
  static std::vector<float> encodeSummableStepOf(const Compressor& inner,
                                                 std::span<const float> input,
                                                 CompressorState& state) {
    return inner.encodeSummableStep(input, state);
  }
  static void aggregateCustomStepOf(const Compressor& inner, Transport& transport,
                                    std::span<float> gradient, CompressorState& state,
                                    const ProtocolOptions& protocol) {
    inner.aggregateCustomStep(transport, gradient, state, protocol);
  }
  static void expandSummedStepOf(const Compressor& inner, std::span<const float> summed,
                                 const CompressorState& state, uint64_t step,
                                 std::span<float> output) {
    inner.expandSummedStep(summed, state, step, output);
  }
};

using CompressorPtr = std::unique_ptr<Compressor>;

}  // namespace tetrad
