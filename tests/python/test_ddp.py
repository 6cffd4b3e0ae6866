"""tetrad's comm hook inside real DDP (gloo, 2 processes).

- compress="none" gives the parameters of plain DDP after 20 steps (within
  float tolerance), with several buckets and DDP's bucket rebuild after the
  first iteration;
- every kind of path trains through DDP and the replicas stay identical on
  every rank (all paths return the same average everywhere).
"""
import pytest

from distributed import run

STEPS = 20


def make_model():
    import torch.nn as nn
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Flatten(), nn.Linear(4 * 6 * 6, 16),
                         nn.ReLU(), nn.Linear(16, 3))


def train(rank, spec, steps):
    import torch
    import torch.nn.functional as F
    from torch.nn.parallel import DistributedDataParallel

    import tetrad.torch as tt

    torch.manual_seed(0)
    model = DistributedDataParallel(make_model(), bucket_cap_mb=0.002)  # several buckets
    hook = None
    if spec is not None:
        hook = tt.HookState(None, compress=spec, seed=1)
        model.register_comm_hook(hook, tt.comm_hook)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    data = torch.Generator().manual_seed(100 + rank)
    for _ in range(steps):
        x = torch.randn(8, 1, 8, 8, generator=data)
        y = torch.randint(0, 3, (8,), generator=data)
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
    flat = torch.cat([p.detach().flatten() for p in model.parameters()])
    return flat, (hook.stats() if hook else None)


def none_equals_plain(rank, world):
    plain, _ = train(rank, None, STEPS)
    hooked, stats = train(rank, "none", STEPS)
    assert stats["buckets"] >= 2, stats  # several buckets, before and after the rebuild
    return (plain - hooked).abs().max().item(), plain.abs().max().item()


def test_none_equals_plain_ddp():
    for diff, scale in run(2, none_equals_plain):
        assert diff <= 1e-6 * max(1.0, scale), f"max difference {diff}"


SPECS = ["fp16", "bf16", "topk:0.05,ef", "qsgd:16", "dgc:0.05", "sign", "gtopk:0.05",
         "powersgd:2", "onebit"]


def replicas_agree(rank, world):
    import torch
    import torch.distributed as dist
    out = {}
    for spec in SPECS:
        flat, stats = train(rank, spec, 5)
        assert torch.isfinite(flat).all(), spec
        everyone = [torch.zeros_like(flat) for _ in range(world)]
        dist.all_gather(everyone, flat)
        assert all(torch.equal(everyone[0], f) for f in everyone), f"{spec}: replicas differ"
        out[spec] = stats
    return out


def test_every_path_trains_in_ddp():
    stats = run(2, replicas_agree, timeout_s=240)[0]
    assert {s["path"] for s in stats.values()} == {"allreduce", "allgather", "tetrad"}
