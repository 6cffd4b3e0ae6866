"""tetrad for PyTorch: all four dimensions from a user's own training script.

    import tetrad.torch as tt
    # what goes on the wire: a compressed DDP comm hook (this file)
    state = tt.HookState(dist.group.WORLD, compress="topk:0.01,ef", seed=1)
    ddp_model.register_comm_hook(state, tt.comm_hook)
    # when ranks synchronise: Local SGD, post-local SGD, hierarchical (tetrad/_averager.py)
    averager = tt.ModelAverager("local:8", compress="topk:0.01,ef")
    # who talks to whom: D-PSGD and CHOCO-SGD over a topology (tetrad/_gossip.py)
    optimizer = tt.GossipOptimizer(torch.optim.SGD(params, lr=0.1), topology="ring")

HookState owns one CompressorState per DDP bucket (error-feedback residual,
DGC momentum, PowerSGD's Q, the step that drives RNG streams), keyed by the
bucket's parameters — not by bucket index, which DDP renumbers when it
rebuilds its buckets after the first iteration — so states never mix.
comm_hook encodes the bucket with tetrad's compressor, exchanges it with
torch.distributed (tetrad._exchange: all-reduce, all-gather, or tetrad's own
protocol over torch.distributed send/recv) and returns a Future of the
averaged gradient. See docs/python.md.

Threads: DDP calls the hook on the thread that runs backward; decoding may
run on torch.distributed's thread (Future callbacks); stats are locked.
"""
import math
import threading
import zlib

import torch
import torch.distributed as dist

from tetrad import _exchange, _tetrad
from tetrad._dist_endpoint import DistEndpoint, global_rank

_STATE_DICT_VERSION = 1
_MASK64 = (1 << 64) - 1


def _segmentation(compressor):
    """How a bucket is cut for the compressor, from its shape_use trait: 'flat' (one
    vector), 'layout' (one state whose layout lists the bucket's tensor shapes: PowerSGD's
    factors per tensor, exchanged per bucket) or 'per_tensor' (one state and call per
    tensor, with its shape: per-column 1-bit SGD)."""
    use = compressor.shape_use
    if use == "layout":
        return "layout" if _tetrad.HAS_LAYOUT else "per_tensor"
    return "per_tensor" if use == "one_tensor" else "flat"


_HALF = (torch.float16, torch.bfloat16)
_HALF_FORMAT = {torch.float16: "fp16", torch.bfloat16: "bf16"}


def _as_int16(tensor):
    """A half tensor's bits as a NumPy int16 array (NumPy has no bfloat16), no copy."""
    return tensor.view(torch.int16).numpy()


class HookState:
    """The state of tetrad's DDP comm hook on one rank (see the module doc).

    process_group: the group DDP reduces over (None: the default group).
    compress: a tetrad compressor spec (tetrad.known_compressors()); an unknown
        or malformed one raises tetrad.InvalidArgument (a ValueError).
    seed: shared by all ranks (Random-k indices, PowerSGD's first Q); mixed
        with each bucket's key so that buckets draw independent streams.
    timeout_s: of every wait of tetrad's own protocols.
    check_finite: before a bucket is encoded, all ranks agree (a 4-byte all-reduce)
        whether any holds a non-finite value; if one does, every rank's bucket comes back
        filled with NaN, so that a GradScaler skips the step on every rank as it does
        under DDP, and no compressor state (residual, momentum, Q, step) changes. Off for
        the identity compressor, whose all-reduce propagates inf and NaN by itself.
    The constructor is collective: every rank of the group checks that all
    agree on spec, seed and group (ValueError naming the ranks otherwise).
    """

    def __init__(self, process_group=None, compress: str = "none", seed: int = 0,
                 timeout_s: float = 300.0, check_finite: bool = True):
        if not dist.is_initialized():
            raise RuntimeError("tetrad HookState: torch.distributed is not initialised "
                               "(call dist.init_process_group first)")
        if not isinstance(compress, str):
            raise TypeError(f"tetrad HookState: compress must be a spec string, "
                            f"got {type(compress).__name__}")
        if not 0 <= int(seed) <= _MASK64:
            raise ValueError(f"tetrad HookState: seed must be in [0, 2^64), got {seed}")
        self.group = dist.group.WORLD if process_group is None else process_group
        self.compressor = _tetrad.Compressor(compress)
        self.spec = self.compressor.spec
        self.seed = int(seed)
        self.rank = dist.get_rank(self.group)
        self.world_size = dist.get_world_size(self.group)
        self.path = _exchange.path_of(self.compressor)
        self.segmentation = _segmentation(self.compressor)
        if self.segmentation != "flat":
            self.path = "tetrad"
        self.tag = 1000
        self.check_finite = bool(check_finite) and not self.compressor.is_identity
        self.transport = _tetrad.Transport(DistEndpoint(self.group, timeout_s), self.rank,
                                           self.world_size, timeout_s)
        self._ordinals = {}  # parameter storage address -> order of first appearance
        self._buckets = {}   # bucket key -> [(offset, count, CompressorState)]
        self._scratch = {}   # bucket key -> wire buffers reused across iterations
        self._lock = threading.Lock()
        self._stats = dict(calls=0, elements=0, bytes_sent=0, encode_s=0.0, decode_s=0.0,
                           protocol_s=0.0, check_bytes=0, skipped=0)
        self._check_agreement()

    # -- agreement -----------------------------------------------------------
    def _check_agreement(self):
        members = [global_rank(self.group, r) for r in range(self.world_size)]
        text = f"compress='{self.spec}' seed={self.seed} group={members}".encode()
        size = 512
        if len(text) > size:
            raise ValueError(f"tetrad HookState: group of {self.world_size} ranks is too long "
                             "to check")
        mine = torch.zeros(size, dtype=torch.uint8)
        mine[:len(text)] = torch.tensor(list(text), dtype=torch.uint8)
        everyone = [torch.zeros(size, dtype=torch.uint8) for _ in range(self.world_size)]
        dist.all_gather(everyone, mine, group=self.group)
        decoded = [bytes(t.tolist()).rstrip(b"\0").decode() for t in everyone]
        for r, other in enumerate(decoded):
            if other != decoded[0]:
                raise ValueError(f"tetrad HookState: ranks disagree: rank 0 has {decoded[0]} "
                                 f"but rank {r} has {other}")

    # -- buckets -------------------------------------------------------------
    def bucket_key(self, parameters):
        """A stable key for a bucket: the order in which its parameters were first seen."""
        ordinals = []
        for p in parameters:
            address = p.data_ptr()
            if address not in self._ordinals:
                self._ordinals[address] = len(self._ordinals)
            ordinals.append(self._ordinals[address])
        return ",".join(map(str, ordinals))

    def bucket_seed(self, key):
        """The seed of the bucket's CompressorState: the hook's seed mixed with its key."""
        return (self.seed * 0x9E3779B97F4A7C15 + zlib.crc32(key.encode())) & _MASK64

    def _segments(self, key, shapes, length):
        segments = self._buckets.get(key)
        if segments is None:
            seed = self.bucket_seed(key)
            if self.segmentation == "per_tensor":
                segments, offset = [], 0
                for shape in shapes:
                    count = 1
                    for d in shape:
                        count *= d
                    segments.append((offset, count, _tetrad.CompressorState(seed, self.rank,
                                                                            list(shape))))
                    offset += count
            else:
                state = _tetrad.CompressorState(seed, self.rank)
                if self.segmentation == "layout":
                    state.layout = [list(shape) for shape in shapes]
                segments = [(0, length, state)]
            self._buckets[key] = segments
        elif sum(count for _, count, _ in segments) != length:
            raise ValueError(f"tetrad comm hook: bucket '{key}' had "
                             f"{sum(c for _, c, _ in segments)} elements, now {length}")
        return segments

    def reduce(self, tensor, key, shapes):
        """Average a flat CPU tensor (float32, float16 or bfloat16) across the group; a
        Future of it. Half-precision buckets: see _reduce_half; the identity compressor
        all-reduces a float16 bucket as it is, divided first as DDP's default hook does
        (_tetrad.divide_half)."""
        if tensor.dtype != torch.float32 and tensor.dtype not in _HALF:
            raise TypeError(f"tetrad comm hook: bucket '{key}' holds {tensor.dtype}; tetrad's "
                            "hook reduces float32, float16 and bfloat16 gradients")
        if tensor.device.type != "cpu":
            raise NotImplementedError(f"tetrad comm hook: bucket on {tensor.device}; only CPU "
                                      "tensors are supported")
        if not tensor.is_contiguous():
            raise ValueError(f"tetrad comm hook: bucket '{key}' is not contiguous")
        total = sum(_numel(s) for s in shapes)
        if total != tensor.numel():
            raise ValueError(f"tetrad comm hook: bucket '{key}' has {tensor.numel()} elements "
                             f"but its parameters {total}")
        segments = self._segments(key, shapes, tensor.numel())
        self.count(calls=1, elements=tensor.numel())
        scratch = self._scratch.setdefault(key, {})
        if tensor.dtype == torch.float16 and self.compressor.is_identity:
            # DDP's default hook: divide, then all-reduce the float16 bucket itself.
            if self.world_size > 1:
                _tetrad.divide_half(_as_int16(tensor), "fp16", float(self.world_size))
            self.count(bytes_sent=_exchange.ring_allreduce_bytes(2 * tensor.numel(),
                                                                 self.world_size))
            work = dist.all_reduce(tensor, group=self.group, async_op=True)
            return work.get_future().then(lambda _: tensor)
        fmt = _HALF_FORMAT.get(tensor.dtype)
        if fmt is None:
            if self.check_finite and self._any_rank_nonfinite(tensor):
                return self._skip(tensor)
            return self._reduce_float32(tensor, key, segments)
        return self._reduce_half(tensor, fmt, key, segments, scratch)

    def _skip(self, tensor):
        self.count(skipped=1)
        return _exchange.completed(tensor.fill_(float("nan")))

    def _reduce_half(self, tensor, fmt, key, segments, scratch):
        """A float16 or bfloat16 bucket. Compressors and residuals stay float32; the result
        is decoded into a float32 buffer kept per bucket and narrowed back once, with the
        average's division folded into that pass. How the 16-bit values are read:
        - a compressor that reads them in its own first pass (reads_half_input: error
          feedback into its residual, DGC into its momentum, QSGD a block at a time) gets
          the bucket as it is
          (encode_half / encode_summable_half); finiteness is read from the exponents;
        - a plain cast of the bucket's own precision (fp16 on a float16 bucket) all-reduces
          the bucket itself: the encoded path would send the same values;
        - every other one (and tetrad's own protocols) reads a float32 copy, widened once
          into the output buffer with the finiteness check on the way."""
        half, c = _as_int16(tensor), self.compressor
        state = segments[0][2]
        plain = c.is_plain_cast and c.summable_wire == fmt and self.path == "allreduce"
        direct = plain or (c.reads_half_input and self.path in ("allreduce", "allgather"))
        wide = None
        if direct:
            finite = _tetrad.half_finite(half, fmt) if self.check_finite else True
        else:
            wide = _exchange.scratch_buffer(scratch, "half_output", tensor.numel(), torch.float32)
            finite = _tetrad.widen(half, fmt, wide.numpy())
        if self.check_finite and self._any_rank_nonfinite(tensor, finite):
            return self._skip(tensor)
        if plain:  # no float32 buffer at all
            return _exchange.allreduce_as_is(self, tensor, state, fmt)
        if wide is None:
            wide = _exchange.scratch_buffer(scratch, "half_output", tensor.numel(), torch.float32)
        source = (half, fmt) if direct else None
        divisor = float(self.world_size)
        if c.is_identity:
            divisor = 1.0
            reduced = self._reduce_float32(wide, key, segments)
        elif self.path == "tetrad":
            reduced = _exchange.over_tetrad(self, wide, segments, average=False)
        elif self.path == "allreduce":
            reduced = _exchange.allreduce(self, wide, state, scratch, source=source,
                                          average=False)
        else:
            reduced = _exchange.allgather(self, wide, state, source=source, average=False)

        def narrow(future):
            _tetrad.narrow(future.value().numpy(), fmt, half, divisor)
            return tensor

        return reduced.then(narrow)

    def _reduce_float32(self, tensor, key, segments):
        if self.path == "allreduce":
            return _exchange.allreduce(self, tensor, segments[0][2],
                                       self._scratch.setdefault(key, {}))
        if self.path == "allgather":
            return _exchange.allgather(self, tensor, segments[0][2])
        return _exchange.over_tetrad(self, tensor, segments)

    def _any_rank_nonfinite(self, tensor, finite=None):
        """One 4-byte all-reduce (max) of this rank's 'holds inf or NaN' flag. The flag is
        `finite` where the caller already knows it (a half bucket's widening reads it from
        the 16-bit exponents), else the float32 sum's finiteness (a tenth of
        torch.isfinite's cost; a float32 sum of finite gradients overflows only past
        3.4e38, which a step should skip too)."""
        if finite is None:
            finite = math.isfinite(float(tensor.sum()))
        flag = torch.tensor([0.0 if finite else 1.0])
        dist.all_reduce(flag, op=dist.ReduceOp.MAX, group=self.group)
        self.count(check_bytes=_exchange.ring_allreduce_bytes(4, self.world_size),
                   bytes_sent=_exchange.ring_allreduce_bytes(4, self.world_size))
        return flag.item() > 0

    # -- statistics and checkpoints -------------------------------------------
    def count(self, **amounts):
        with self._lock:
            for name, value in amounts.items():
                self._stats[name] += value

    def stats(self):
        """Totals since construction: calls (buckets reduced), elements, bytes_sent (this
        rank; see docs/python.md for how each path counts), encode_s, decode_s, protocol_s
        (tetrad's own protocols: encode, exchange and decode together), check_bytes (the
        part of bytes_sent spent on check_finite's flags), skipped (buckets returned as
        NaN because a rank held a non-finite value), path, buckets."""
        with self._lock:
            out = dict(self._stats)
        out.update(path=self.path, spec=self.spec, buckets=len(self._buckets))
        return out

    def state_dict(self):
        """Everything needed to resume: spec, seed, rank and every bucket's serialized state."""
        return {
            "version": _STATE_DICT_VERSION, "spec": self.spec, "seed": self.seed,
            "rank": self.rank, "world_size": self.world_size,
            "buckets": {key: [(offset, count, state.serialize())
                              for offset, count, state in segments]
                        for key, segments in self._buckets.items()},
        }

    def load_state_dict(self, saved):
        for name in ("version", "spec", "seed", "rank", "world_size"):
            mine = _STATE_DICT_VERSION if name == "version" else getattr(self, name)
            if saved.get(name) != mine:
                raise ValueError(f"tetrad HookState.load_state_dict: {name} is "
                                 f"{saved.get(name)!r} in the saved state, {mine!r} here")
        self._buckets = {
            key: [(int(offset), int(count), _tetrad.CompressorState.deserialize(data))
                  for offset, count, data in segments]
            for key, segments in saved["buckets"].items()
        }


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def comm_hook(state, bucket):
    """DDP comm hook: tetrad-compressed average of the bucket (register_comm_hook)."""
    if not isinstance(state, HookState):
        raise TypeError(f"tetrad comm_hook: state must be a tetrad.torch.HookState, "
                        f"got {type(state).__name__}")
    parameters = bucket.parameters()
    key = state.bucket_key(parameters)
    return state.reduce(bucket.buffer(), key, [list(p.shape) for p in parameters])


# The other two dimensions, re-exported here so that users import one module.
from tetrad._averager import AveragedOptimizer, ModelAverager, post_local_hook  # noqa: E402
from tetrad._gossip import GossipOptimizer, consensus_distance  # noqa: E402
from tetrad._schedule import parse_averaging as parse_schedule  # noqa: E402

__all__ = ["HookState", "comm_hook", "ModelAverager", "AveragedOptimizer", "post_local_hook",
           "GossipOptimizer", "consensus_distance", "parse_schedule"]
