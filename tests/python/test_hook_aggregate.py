"""The hook's average equals tetrad's own aggregate() of the same vectors.

For every compressor, on 2 and 3 gloo ranks: HookState.reduce() (the path
DDP's comm_hook takes: all-reduce, all-gather or tetrad's protocol over
torch.distributed) against tetrad's aggregate() run over a Transport on
torch.distributed with fresh states of the same seed, rank and shapes, for
several iterations (so per-bucket state — residuals, momentum, Q, RNG
steps — must carry alike). Bit-exact where the reduction order is fixed
(gather, tetrad's protocols, and two-rank all-reduces); within the
reduction-order bound otherwise (all-reduce on three ranks).
"""
import numpy
import pytest

from distributed import run

SPECS = ["none", "fp16", "bf16", "onebit", "onebit:col", "sign", "sign,ef", "efsign",
         "terngrad", "qsgd:16", "qsgd:4:elias", "natural", "topk:0.01", "topk:0.05,ef",
         "randomk:0.1", "randomk:0.1:scaled", "threshold:0.5", "dgc:0.01", "gtopk:0.05",
         "powersgd:2", "fp16,ef", "qsgd:8,ef", "terngrad,ef", "natural,ef"]
SHAPES = [[40, 30], [30], [8, 4, 5]]
ITERATIONS = 3
BUILT_IN_EF = ("onebit", "efsign", "dgc", "gtopk", "powersgd")


def vector(rank, iteration, n):
    rng = numpy.random.default_rng(1000 * rank + iteration)
    return (rng.standard_normal(n) * 0.1).astype(numpy.float32)


def decoded_contributions(compressor, state, x, world):
    """Every rank's decoded tensor of this step (from a copy of its state)."""
    import torch
    import torch.distributed as dist
    import tetrad
    copy = tetrad.CompressorState.deserialize(state.serialize())
    mine = numpy.zeros_like(x)
    compressor.expand_summed(compressor.encode_summable(x, copy), copy, mine)
    everyone = [torch.zeros(x.size) for _ in range(world)]
    dist.all_gather(everyone, torch.from_numpy(mine))
    return [t.numpy() for t in everyone]


def check_every_compressor(rank, world, specs):
    import torch
    import tetrad
    import tetrad.torch as tt
    from tetrad import _tetrad
    from tetrad._dist_endpoint import DistEndpoint

    n = sum(int(numpy.prod(s)) for s in SHAPES)
    parameters = [torch.zeros(s) for s in SHAPES]  # stand-ins for a bucket's parameters
    reference = _tetrad.Transport(DistEndpoint(), rank, world)
    seen = {}
    for spec in specs:
        hook = tt.HookState(None, compress=spec, seed=11)
        key = hook.bucket_key(parameters)
        compressor = tetrad.Compressor(spec)
        if hook.segmentation == "per_tensor":
            parts, offset = [], 0
            for s in SHAPES:
                count = int(numpy.prod(s))
                state = tetrad.CompressorState(hook.bucket_seed(key), rank, s)
                parts.append((offset, count, state))
                offset += count
        else:
            parts = [(0, n, tetrad.CompressorState(hook.bucket_seed(key), rank))]
            if hook.segmentation == "layout":
                parts[0][2].layout = SHAPES
        for it in range(ITERATIONS):
            x = vector(rank, it, n)
            got = hook.reduce(torch.from_numpy(x.copy()), key, SHAPES).wait().numpy()
            expected = x.copy()
            if hook.path == "allreduce":
                contributions = decoded_contributions(compressor, parts[0][2], x, world)
            for offset, count, state in parts:
                _tetrad.aggregate(reference, compressor, expected[offset:offset + count], state,
                                  tag=2000)
            exact = hook.path != "allreduce" or world == 2
            where = f"{spec} on {world} ranks, iteration {it}, path {hook.path}"
            if exact:
                diff = numpy.flatnonzero(got.view(numpy.uint32) != expected.view(numpy.uint32))
                assert diff.size == 0, (f"{where}: {diff.size} elements differ, first at "
                                        f"{diff[0]}: {got[diff[0]]} vs {expected[diff[0]]}")
            else:
                u = 2.0 ** -11 if compressor.summable_wire == "fp16" else 2.0 ** -24
                total = sum(numpy.abs(d) for d in contributions)
                bound = 2 * world * u * total / world + 1e-30
                excess = numpy.abs(got - expected) - bound
                assert (excess <= 0).all(), f"{where}: off by {excess.max()} beyond the bound"
            assert numpy.isfinite(got).all(), where
            # Per-bucket state carried alike: step, residual, momentum, Q, ...
            hook_states = [s for _, _, s in hook._buckets[key]]
            for mine, theirs in zip(hook_states, [s for _, _, s in parts]):
                assert mine.step == theirs.step == it + 1, where
                assert mine.serialize() == theirs.serialize(), f"{where}: states differ"
            if spec.endswith(",ef") or spec.startswith(BUILT_IN_EF):
                kept = [b.size for s in hook_states for b in s.buffers.values()]
                assert any(kept), f"{where}: no memory kept"
        stats = hook.stats()
        assert stats["calls"] == ITERATIONS and stats["elements"] == ITERATIONS * n, stats
        assert stats["bytes_sent"] > 0, stats
        seen[spec] = stats
    return seen


@pytest.mark.parametrize("world", [2, 3])
def test_hook_equals_tetrad_aggregate(world):
    results = run(world, check_every_compressor, SPECS, timeout_s=240)
    stats = results[0]
    assert set(stats) == set(SPECS)
    # The 16-bit wire really is half of float32's bytes (fp16 also pays check_finite's
    # 4-byte flags, counted apart; the identity needs none).
    fp16 = stats["fp16"]["bytes_sent"] - stats["fp16"]["check_bytes"]
    assert stats["fp16"]["check_bytes"] > 0 and stats["none"]["check_bytes"] == 0
    assert abs(fp16 * 2 - stats["none"]["bytes_sent"]) <= 2 * ITERATIONS
    assert stats["bf16"]["path"] == "tetrad" and stats["fp16"]["path"] == "allreduce"
    assert stats["topk:0.01"]["path"] == "allgather" and stats["sign"]["path"] == "tetrad"
    # PowerSGD really compresses the matrices of the bucket (rank 2 of 40x30 and 8x20).
    assert stats["powersgd:2"]["bytes_sent"] < stats["none"]["bytes_sent"] / 3


def check_error_feedback_carries(rank, world):
    import torch
    import tetrad
    import tetrad.torch as tt
    from tetrad import _tetrad
    from tetrad._dist_endpoint import DistEndpoint

    n = 5000
    parameters = [torch.zeros(n)]
    hook = tt.HookState(None, compress="topk:0.01,ef", seed=3)
    key = hook.bucket_key(parameters)
    plain = tetrad.Compressor("topk:0.01")
    reference = _tetrad.Transport(DistEndpoint(), rank, world)
    for it in range(4):
        x = vector(rank, it, n)
        state = hook._buckets[key][0][2] if key in hook._buckets else None
        carried = (hook.compressor.residual(state) if state is not None
                   else numpy.zeros(n, numpy.float32))
        if it > 0:
            assert numpy.abs(carried).sum() > 0, "no residual after a Top-k step"
        got = hook.reduce(torch.from_numpy(x.copy()), key, [[n]]).wait().numpy()
        # Error feedback: this step sends Top-k of x + the residual carried in.
        expected = x + carried
        _tetrad.aggregate(reference, plain, expected, tetrad.CompressorState(0, rank), tag=2000)
        assert numpy.array_equal(got, expected), f"iteration {it}"
    return True


def test_error_feedback_carries_across_iterations():
    assert run(2, check_error_feedback_carries) == [True, True]
