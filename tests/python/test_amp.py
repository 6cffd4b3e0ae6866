"""tetrad's DDP comm hook on half-precision buckets, and its non-finite check.

A float16 or bfloat16 bucket is reduced through a float32 copy with float32 compressor
state, so its result must be the float32 hook's result on the same values, rounded once
to the bucket's type — for every compressor. A bucket with inf or NaN on one rank must come
back as NaN on every rank, with the compressor state untouched, so that a GradScaler skips
the step everywhere (torch 1.13's GradScaler runs on CUDA only and its CPU matmul has no float16; the DDP
test trains float16 parameters in float32 arithmetic and performs GradScaler's finiteness check by hand).
"""
import pytest

import distributed

SIZE = 3000


def _values(rank, dtype, step=0):
    import torch
    generator = torch.Generator().manual_seed(17 * rank + step)
    return (torch.randn(SIZE, generator=generator) * 0.01).to(dtype)


def _every_spec(rank, world, dtype_name):
    import tetrad
    return {spec: _half_against_float(rank, spec, dtype_name)
            for spec in tetrad.known_compressors()}


def _half_against_float(rank, spec, dtype_name):
    import torch
    import tetrad.torch as tt
    dtype = getattr(torch, dtype_name)
    half = tt.HookState(compress=spec, seed=3)
    wide = tt.HookState(compress=spec, seed=3)
    shapes = [[50, 60]]
    results = []
    for step in range(3):
        values = _values(rank, dtype, step)
        ours = half.reduce(values.clone(), "b", shapes).wait()
        reference = wide.reduce(values.float(), "b", shapes).wait()
        assert ours.dtype == dtype
        results.append((ours.float().numpy().copy(), reference.to(dtype).float().numpy().copy()))
    state = half._buckets["b"][0][2]
    floats = {name: str(buffer.dtype) for name, buffer in state.buffers.items()}
    return results, floats


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_buckets_equal_the_float32_hook_rounded_once(dtype):
    every = distributed.run(2, _every_spec, dtype)[0]
    assert len(every) >= 10
    for spec, (results, buffers) in every.items():
        for step, (ours, reference) in enumerate(results):
            if spec == "none" and dtype == "float16":
                # all-reduced in float16 as DDP does: within float16's rounding.
                assert abs(ours - reference).max() <= 1e-3 * abs(reference).max() + 1e-7
            else:
                assert ours.tobytes() == reference.tobytes(), f"{spec} {dtype} step {step}"
        assert all(kind == "float32" for kind in buffers.values()), (spec, buffers)


def _nonfinite(rank, world, spec):
    import torch
    import tetrad.torch as tt
    hook = tt.HookState(compress=spec, seed=5)
    first = hook.reduce(_values(rank, torch.float32), "b", [[SIZE]]).wait().clone()
    before = hook._buckets["b"][0][2].serialize()
    poisoned = _values(rank, torch.float16, 1)
    if rank == 1:
        poisoned[7] = float("inf")
    out = hook.reduce(poisoned, "b", [[SIZE]]).wait()
    after = hook._buckets["b"][0][2].serialize()
    later = hook.reduce(_values(rank, torch.float32, 2), "b", [[SIZE]]).wait()
    stats = hook.stats()
    return (bool(torch.isnan(out).all()), before == after, bool(torch.isfinite(later).all()),
            bool(torch.isfinite(first).all()), stats["skipped"], stats["check_bytes"])


@pytest.mark.parametrize("spec", ["topk:0.01,ef", "powersgd:2", "dgc:0.01", "fp16"])
def test_a_nonfinite_bucket_is_skipped_on_every_rank_without_touching_state(spec):
    for nan_out, unchanged, later_finite, first_finite, skipped, check_bytes in \
            distributed.run(2, _nonfinite, spec):
        assert nan_out and unchanged and later_finite and first_finite
        assert skipped == 1 and check_bytes > 0


def _half_linear():
    """float16 parameters, float32 arithmetic (CPU matmul has no float16): float16
    gradients reach DDP's buckets, as with a .half() model on a GPU."""
    import torch

    class HalfLinear(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(4, 20).half() * 0.1)
            self.bias = torch.nn.Parameter(torch.zeros(4).half())

        def forward(self, x):
            return torch.nn.functional.linear(x, self.weight.float(), self.bias.float())

    return HalfLinear()


def _ddp_with_overflow(rank, world):
    import torch
    import tetrad.torch as tt
    from torch.nn.parallel import DistributedDataParallel
    torch.manual_seed(0)
    model = DistributedDataParallel(_half_linear())
    hook = tt.HookState(compress="topk:0.1,ef", seed=1)
    model.register_comm_hook(hook, tt.comm_hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    skipped = []
    for step in range(4):
        x = torch.randn(8, 20, generator=torch.Generator().manual_seed(step + rank))
        loss = model(x).float().pow(2).mean()
        if step == 2 and rank == 0:
            loss = loss * float("inf")  # an overflow on one rank only
        optimizer.zero_grad()
        loss.backward()
        finite = all(bool(torch.isfinite(p.grad).all()) for p in model.parameters())
        if finite:  # what GradScaler.step() checks before stepping
            optimizer.step()
        skipped.append(not finite)
        assert all(p.grad.dtype == torch.float16 for p in model.parameters())
    flat = torch.cat([p.data.float().reshape(-1) for p in model.parameters()])
    return skipped, flat.numpy().copy(), hook.stats()["skipped"]


def test_ddp_float16_model_skips_an_overflow_on_every_rank():
    results = distributed.run(2, _ddp_with_overflow)
    for skipped, _, count in results:
        assert skipped == [False, False, True, False] and count >= 1
    assert results[0][1].tobytes() == results[1][1].tobytes()


@pytest.mark.parametrize("dtype_name,fmt", [("float16", "fp16"), ("bfloat16", "bf16")])
def test_the_conversions_equal_torch_on_every_16_bit_value(dtype_name, fmt):
    """widen, narrow and divide_half (the hook's C++ half path) give torch's bits on all
    65 536 patterns (subnormals, inf, NaN), on float32 values between them, and report
    finiteness."""
    import torch
    from tetrad import _tetrad
    dtype = getattr(torch, dtype_name)
    every = torch.arange(-32768, 32768, dtype=torch.int32).to(torch.int16).view(dtype)
    wide = torch.empty(every.numel())
    assert not _tetrad.widen(every.view(torch.int16).numpy(), fmt, wide.numpy())
    assert torch.equal(wide.view(torch.int32), every.float().view(torch.int32))
    finite = every[torch.isfinite(every)]
    assert _tetrad.widen(finite.view(torch.int16).numpy(), fmt, torch.empty(finite.numel()).numpy())
    between = torch.cat([torch.randn(100000) * scale for scale in (1e-6, 1e-3, 1.0, 1e3, 1e5)])
    between = torch.cat([between, torch.tensor([float("inf"), float("-inf"), float("nan")])])
    out = torch.empty(between.numel(), dtype=dtype)
    _tetrad.narrow(between.numpy(), fmt, out.view(torch.int16).numpy())
    reference = between.to(dtype)
    same = (out.view(torch.int16) == reference.view(torch.int16)) | (out.isnan() & reference.isnan())
    assert bool(same.all())
    halves = finite.clone()
    _tetrad.divide_half(halves.view(torch.int16).numpy(), fmt, 3.0)
    assert torch.equal(halves.view(torch.int16), finite.div(3).view(torch.int16))


def test_the_conversions_refuse_what_they_cannot_convert():
    import numpy
    import torch
    from tetrad import _tetrad
    halves = torch.zeros(8, dtype=torch.float16).view(torch.int16).numpy()
    with pytest.raises(ValueError, match="format must be 'fp16' or 'bf16'"):
        _tetrad.widen(halves, "fp8", numpy.zeros(8, dtype=numpy.float32))
    with pytest.raises(ValueError, match="src has 8 elements, out 7"):
        _tetrad.widen(halves, "fp16", numpy.zeros(7, dtype=numpy.float32))
    with pytest.raises(TypeError, match="expected 2-byte items"):
        _tetrad.widen(numpy.zeros(8, dtype=numpy.float32), "fp16", numpy.zeros(8, dtype=numpy.float32))
    with pytest.raises(TypeError, match="expected a float32 array"):
        _tetrad.narrow(numpy.zeros(8), "bf16", halves)
    with pytest.raises(ValueError, match="flat contiguous"):
        _tetrad.divide_half(numpy.zeros((4, 4), dtype=numpy.int16)[:, ::2], "fp16", 2.0)
