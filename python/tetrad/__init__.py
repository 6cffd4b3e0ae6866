"""tetrad: communication-efficient data-parallel training (docs/python.md).

This package exposes tetrad's compression layer (C++, tetrad._tetrad):
every compressor of `tetrad train --compress` with error feedback and its
aggregation protocol, and its gossip topologies. `tetrad.torch` plugs them
into PyTorch: a DDP comm hook, model averaging (Local SGD, post-local,
hierarchical, with a compressed delta) and gossip (D-PSGD, CHOCO-SGD):

    import tetrad.torch as tt
    state = tt.HookState(dist.group.WORLD, compress="topk:0.01,ef", seed=1)
    ddp_model.register_comm_hook(state, tt.comm_hook)

Errors are tetrad.Error subclasses: InvalidArgument (also a ValueError; an
unknown or malformed spec), Unsupported (also NotImplementedError),
ProtocolError (a malformed packet), TransportError, TimeoutError.
"""
from tetrad._tetrad import (  # noqa: F401
    HAS_LAYOUT,
    Compressor,
    Topology,
    CompressorState,
    Error,
    InvalidArgument,
    ProtocolError,
    TimeoutError,
    TransportError,
    Unsupported,
    finish_reduction,
    known_compressors,
    known_topologies,
    parse_topology,
)

__all__ = [
    "Compressor", "CompressorState", "Error", "InvalidArgument", "ProtocolError",
    "TimeoutError", "TransportError", "Unsupported", "finish_reduction", "known_compressors",
    "HAS_LAYOUT", "Topology", "known_topologies", "parse_topology",
]
