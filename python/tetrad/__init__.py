"""tetrad: communication-efficient data-parallel training (docs/python.md).

This package exposes tetrad's compression layer (C++, tetrad._tetrad):
every compressor of `tetrad train --compress` with error feedback and its
aggregation protocol. `tetrad.torch` plugs them into PyTorch DDP as a comm
hook:

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
    CompressorState,
    Error,
    InvalidArgument,
    ProtocolError,
    TimeoutError,
    TransportError,
    Unsupported,
    finish_reduction,
    known_compressors,
)

__all__ = [
    "Compressor", "CompressorState", "Error", "InvalidArgument", "ProtocolError",
    "TimeoutError", "TransportError", "Unsupported", "finish_reduction", "known_compressors",
    "HAS_LAYOUT",
]
