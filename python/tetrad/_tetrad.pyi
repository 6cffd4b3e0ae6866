# Type stubs of tetrad._tetrad, the compiled part of the package (pybind11;
# python/src/module.cc, bind_compressor.cc, bind_transport.cc,
# bind_topology.cc, bind_gossip.cc). Keep them in step with the bindings: every class,
# property and function the module defines is listed here with its argument
# names and defaults. Float arrays are NumPy float32 and C-contiguous (the
# module never converts: another dtype raises TypeError, a strided array
# ValueError); "out" arrays are written in place. Packets are any flat
# contiguous buffer (bytes, bytearray, memoryview, a uint8 array).
from typing import Any, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

_Floats = npt.NDArray[np.float32]
_Buffer = Union[bytes, bytearray, memoryview, npt.NDArray[Any]]
_Halves = npt.NDArray[np.int16]  # float16 / bfloat16 bits: tensor.view(torch.int16).numpy()

# True where this source tree's CompressorState has `layout` (batched
# PowerSGD over the tensors of a fused bucket).
HAS_LAYOUT: bool

# tetrad's errors. Error derives from RuntimeError; InvalidArgument is also a
# ValueError (an unknown or malformed spec), Unsupported a NotImplementedError.
class Error(RuntimeError): ...
class InvalidArgument(Error, ValueError): ...
class Unsupported(Error, NotImplementedError): ...
class TimeoutError(Error): ...
class ProtocolError(Error): ...
class TransportError(Error): ...

class CompressorState:
    """Per-tensor compressor state: error-feedback residual, momentum,
    PowerSGD's Q, the step counter of RNG streams."""

    seed: int
    rank: int
    step: int
    shape: list[int]
    # Present only where HAS_LAYOUT is True: the shapes of the tensors that
    # lie one after another in a fused bucket.
    layout: list[list[int]]
    def __init__(self, seed: int = 0, rank: int = 0, shape: Sequence[int] = ...) -> None: ...
    @property
    def buffers(self) -> dict[str, _Floats]:
        """Copies of the named float buffers (residual, momentum, q, ...)."""
    def serialize(self) -> bytes: ...
    @staticmethod
    def deserialize(data: _Buffer, /) -> "CompressorState": ...

class Compressor:
    """A tetrad compressor made from a spec string (known_compressors())."""

    def __init__(self, spec: str) -> None: ...
    @property
    def spec(self) -> str: ...
    @property
    def aggregation(self) -> Literal["summable", "gather", "custom"]: ...
    @property
    def summable_wire(self) -> Literal["fp32", "fp16", "bf16"]: ...
    @property
    def is_identity(self) -> bool: ...
    @property
    def reads_half_input(self) -> bool:
        """encode_half reads 16-bit values in the compressor's own first pass
        (error feedback, DGC without clipping); otherwise it widens first."""
    @property
    def is_plain_cast(self) -> bool:
        """fp16 and bf16: a bucket already in summable_wire's precision may be
        all-reduced as it is."""
    @property
    def shape_use(self) -> Literal["flat", "layout", "one_tensor"]:
        """What a bucket must carry: 'flat' (nothing), 'layout' (the shapes of
        its tensors) or 'one_tensor' (one tensor per state, with its shape)."""
    @property
    def unbiased(self) -> bool: ...
    def bits_per_element(self, count: int) -> float: ...
    def encode(self, input: _Floats, state: CompressorState) -> bytes: ...
    def decode_add(self, packet: _Buffer, out: _Floats) -> None: ...
    def decode_sum(self, packets: Sequence[_Buffer], out: _Floats, average: bool = True) -> None:
        """Zeroes out, adds every rank's packet in rank order, averages:
        aggregate()'s gather path."""
    def encode_summable(self, input: _Floats, state: CompressorState) -> _Floats: ...
    def encode_half(self, input: _Halves, format: str, state: CompressorState,
                    scratch: Optional[_Floats] = None) -> bytes:
        """encode() of a float16 ('fp16') or bfloat16 ('bf16') buffer viewed as
        int16: bit for bit encode() of its float32 values. scratch: a float32
        array of as many elements, where a compressor that does not read 16-bit
        values itself widens them."""
    def encode_summable_half(self, input: _Halves, format: str, state: CompressorState,
                             scratch: Optional[_Floats] = None) -> _Floats: ...
    def expand_summed(self, summed: _Floats, state: CompressorState, out: _Floats) -> None: ...
    def residual(self, state: CompressorState) -> _Floats:
        """The error-feedback residual the state carries (empty if none)."""

def finish_reduction(data: _Floats, world_size: int, average: bool = True) -> None:
    """Turns a sum over world_size ranks into the collectives' average (or
    leaves the sum)."""

def known_compressors() -> list[str]: ...

def widen(src: _Halves, format: str, out: _Floats) -> bool:
    """out = float32(src) for a float16 ('fp16') or bfloat16 ('bf16') buffer
    of 2-byte items (tensor.view(torch.int16).numpy()); True when every value
    is finite."""

def narrow(src: _Floats, format: str, out: _Halves, divisor: float = 1.0) -> None:
    """out = fp16 or bf16 of the float32 array src / divisor (the division in
    float32), rounded to nearest even."""

def half_finite(src: _Halves, format: str) -> bool:
    """True when no value of the float16 or bfloat16 buffer is inf or NaN."""

def divide_half(buf: _Halves, format: str, divisor: float) -> None:
    """buf /= divisor in place on a float16 or bfloat16 buffer (computed in
    float32, rounded once)."""

class Transport:
    """A tetrad Transport over a Python endpoint (tetrad._dist_endpoint.
    DistEndpoint: torch.distributed isend/irecv)."""

    def __init__(self, endpoint: object, rank: int, size: int, timeout: float = 300.0) -> None: ...
    @property
    def rank(self) -> int: ...
    @property
    def size(self) -> int: ...
    @property
    def bytes_sent(self) -> int: ...
    @property
    def bytes_received(self) -> int: ...
    @property
    def messages_sent(self) -> int: ...

def aggregate(
    transport: Transport,
    compressor: Compressor,
    gradient: _Floats,
    state: CompressorState,
    tag: int = 1000,
    average: bool = True,
    allreduce: str = "ring",
) -> None:
    """tetrad's aggregate(): encode, exchange with the compressor's protocol
    over `transport`, decode; the average (or sum) is left in `gradient` in
    place."""

class Topology:
    """A gossip topology: who mixes with whom at each step, with
    Metropolis-Hastings weights (symmetric, doubly stochastic). Made by
    parse_topology()."""

    @property
    def spec(self) -> str: ...
    @property
    def size(self) -> int: ...
    @property
    def period(self) -> int: ...
    @property
    def time_varying(self) -> bool: ...
    def neighbours(self, rank: int, step: int = 0) -> list[int]:
        """Neighbours of `rank` at `step`, ascending."""
    def mixing_row(self, rank: int, step: int = 0) -> list[tuple[int, float]]:
        """(rank, weight) over the closed neighbourhood of `rank` at `step`;
        weights sum to 1."""
    def spectral_gap(self) -> float:
        """1 - contraction(): how much of the consensus distance one step
        removes at least."""
    def contraction(self) -> float:
        """|lambda_2| of the mixing matrix (per step over a period for
        time-varying topologies)."""

def parse_topology(spec: str, workers: int, seed: int = 1) -> Topology:
    """A Topology for `workers` ranks from a spec (known_topologies());
    InvalidArgument (a ValueError) naming the problem otherwise."""

def known_topologies() -> str: ...

class GossipMixer:
    """D-PSGD's averaging step: x_i <- sum_j w_ij x_j over the closed
    neighbourhood at `step`. Keeps its receive buffers across calls."""

    def __init__(self) -> None: ...
    def mix(
        self, transport: Transport, topology: Topology, step: int, x: _Floats, tag: int = 400
    ) -> None:
        """One averaging step in place on the float32 array x."""

class ChocoState:
    """What a rank of CHOCO-SGD remembers between steps: the public copies of
    itself and of its neighbours, its compressor state, the step count."""

    def __init__(self, topology: Topology, rank: int, count: int, seed: int = 0) -> None: ...
    @property
    def rank(self) -> int: ...
    @property
    def ranks(self) -> list[int]: ...
    @property
    def steps(self) -> int: ...
    @property
    def count(self) -> int: ...
    def public_copy(self, peer: int) -> _Floats:
        """A copy of the public copy x-hat of `peer` (this rank or a neighbour)."""
    def serialize(self) -> bytes: ...
    @staticmethod
    def deserialize(data: _Buffer, /) -> "ChocoState": ...

def choco_step(
    transport: Transport,
    topology: Topology,
    x: _Floats,
    compressor: Compressor,
    state: ChocoState,
    gamma: float = 1.0,
    tag: int = 400,
) -> None:
    """One CHOCO gossip step in place on x (after the local SGD update)."""
