"""HookState.state_dict()/load_state_dict(): a restored hook continues exactly.

Two ranks run a compressor with per-bucket state for a few iterations, save
the hook state (through torch.save, as a training checkpoint would), then
both the original hook and a fresh one loaded from the checkpoint take the
same further iterations: their averages must be bit-identical, and differ
from a fresh hook's that did not load (so the test can fail).
"""
import io

import numpy
import pytest

from distributed import run

SHAPES = [[32, 16], [16]]


def vector(rank, iteration, n):
    rng = numpy.random.default_rng(77 + 1000 * rank + iteration)
    return (rng.standard_normal(n) * 0.1).astype(numpy.float32)


def check_round_trip(rank, world, spec):
    import torch
    import tetrad.torch as tt

    n = sum(int(numpy.prod(s)) for s in SHAPES)
    parameters = [torch.zeros(s) for s in SHAPES]
    original = tt.HookState(None, compress=spec, seed=5)
    key = original.bucket_key(parameters)
    for it in range(3):
        original.reduce(torch.from_numpy(vector(rank, it, n)), key, SHAPES).wait()
    buffer = io.BytesIO()
    torch.save(original.state_dict(), buffer)
    buffer.seek(0)
    restored = tt.HookState(None, compress=spec, seed=5)
    restored.load_state_dict(torch.load(buffer))
    fresh = tt.HookState(None, compress=spec, seed=5)
    differs = False
    for it in range(3, 5):
        x = vector(rank, it, n)
        a = original.reduce(torch.from_numpy(x.copy()), key, SHAPES).wait().numpy().copy()
        b = restored.reduce(torch.from_numpy(x.copy()), restored.bucket_key(parameters),
                            SHAPES).wait().numpy().copy()
        c = fresh.reduce(torch.from_numpy(x.copy()), fresh.bucket_key(parameters),
                         SHAPES).wait().numpy()
        assert numpy.array_equal(a, b), f"{spec}: restored hook differs at iteration {it}"
        differs = differs or not numpy.array_equal(a, c)
    assert differs, f"{spec}: a fresh hook gives the same result; the test proves nothing"
    # A state saved under another spec is refused.
    other = tt.HookState(None, compress="fp16", seed=5)
    with pytest.raises(ValueError, match="spec"):
        other.load_state_dict(original.state_dict())
    return True


@pytest.mark.parametrize("spec", ["topk:0.05,ef", "powersgd:2", "qsgd:4,ef"])
def test_state_dict_round_trip(spec):
    assert run(2, check_round_trip, spec) == [True, True]
