"""tetrad.torch.ModelAverager against torch's model averagers, on gloo ranks.

Uncompressed, tetrad's averaging is torch's arithmetic, so the models must be equal bit
for bit after the same training steps: local:H against PeriodicModelAverager, post-local
with DDP against PostLocalSGDOptimizer and post_localSGD_hook, hier against
HierarchicalModelAverager. Compressed, every rank of a level must hold the same model
after an averaging, the residual must survive state_dict, and bad schedules must raise
ValueError with one line.
"""
import pytest

import distributed

STEPS = 12


def _model(rank):
    import torch
    torch.manual_seed(100 + rank)  # replicas start apart: averaging must pull them together
    return torch.nn.Sequential(torch.nn.Linear(6, 5), torch.nn.Tanh(), torch.nn.Linear(5, 2))


def _train(model, optimizer, step, rank):
    import torch
    generator = torch.Generator().manual_seed(1000 * rank + step)
    x = torch.randn(8, 6, generator=generator)
    y = torch.randn(8, 2, generator=generator)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()


def _flat(model):
    """The parameters as one numpy array (tensors do not cross process boundaries well)."""
    import torch
    return torch.cat([p.data.reshape(-1) for p in model.parameters()]).numpy().copy()


def _equal(a, b):
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def _local_sgd(rank, world, implementation, period):
    import torch
    import tetrad.torch as tt
    from torch.distributed.algorithms.model_averaging.averagers import PeriodicModelAverager
    model = _model(rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    averager = (tt.ModelAverager(f"local:{period}") if implementation == "tetrad"
                else PeriodicModelAverager(period=period))
    for step in range(STEPS):
        _train(model, optimizer, step, rank)
        averager.average_parameters(model.parameters())
    return _flat(model)


@pytest.mark.parametrize("period", [1, 3])
def test_local_sgd_equals_torch_bit_for_bit(period):
    ours = distributed.run(3, _local_sgd, "tetrad", period)
    theirs = distributed.run(3, _local_sgd, "torch", period)
    for rank in range(3):
        assert _equal(ours[rank], theirs[rank]), f"rank {rank} differs"
    # The last step (11) averages for period 1 and 3 (11 % 3 != 0: not for 3).
    assert _equal(ours[0], ours[1]) == (period == 1)


def _post_local(rank, world, implementation):
    import torch
    import tetrad.torch as tt
    from torch.distributed.algorithms.ddp_comm_hooks import post_localSGD_hook as hooks
    from torch.distributed.algorithms.model_averaging.averagers import PeriodicModelAverager
    from torch.distributed.optim import PostLocalSGDOptimizer
    from torch.nn.parallel import DistributedDataParallel
    model = DistributedDataParallel(_model(rank))
    base = torch.optim.SGD(model.parameters(), lr=0.1)
    if implementation == "tetrad":
        averager = tt.ModelAverager("post-local:4:3")
        model.register_comm_hook(averager, tt.post_local_hook)
        optimizer = tt.AveragedOptimizer(base, averager)
    else:
        # Local gradients after warm-up (no intra-node all-reduce: that needs subgroups,
        # which torch 1.13 creates only when CUDA is available).
        state = hooks.PostLocalSGDState(process_group=None, subgroup=None,
                                        start_localSGD_iter=4,
                                        post_local_gradient_allreduce=False)
        model.register_comm_hook(state, hooks.post_localSGD_hook)
        optimizer = PostLocalSGDOptimizer(base, PeriodicModelAverager(period=3,
                                                                      warmup_steps=4))
    for step in range(STEPS):
        _train(model, optimizer, step, rank)
    return _flat(model.module)


def test_post_local_sgd_equals_torch_bit_for_bit():
    ours = distributed.run(2, _post_local, "tetrad")
    theirs = distributed.run(2, _post_local, "torch")
    for rank in range(2):
        assert _equal(ours[rank], theirs[rank]), f"rank {rank} differs"


def _post_local_compressed(rank, world):
    import torch
    import tetrad.torch as tt
    from torch.nn.parallel import DistributedDataParallel
    model = DistributedDataParallel(_model(rank))
    averager = tt.ModelAverager("post-local:4:3", compress="topk:0.3,ef", seed=2)
    model.register_comm_hook(averager, tt.post_local_hook)
    optimizer = tt.AveragedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1), averager)
    flats, averaged = [], []
    for step in range(STEPS):
        _train(model, optimizer, step, rank)
        flats.append(_flat(model.module))
        averaged.append(optimizer.averaged)
    return flats, averaged, averager.stats(), averager.gradient_hook.stats()


def test_post_local_compresses_both_phases():
    results = distributed.run(2, _post_local_compressed)
    flats, averaged, stats, gradient = results[0]
    # Synchronous phase: DDP applies one compressed average everywhere; afterwards the
    # replicas meet at steps 4, 7, 10 (compressed deltas after the first, exact one).
    for step in range(STEPS):
        same = _equal(flats[step], results[1][0][step])
        assert same == (step < 4 or (step - 4) % 3 == 0), f"step {step}"
    assert averaged == [False] * 4 + [(s - 4) % 3 == 0 for s in range(4, STEPS)]
    assert gradient["calls"] >= 4 and gradient["path"] == "allgather"
    assert stats["gradient_bytes"] == gradient["bytes_sent"] > 0
    assert stats["levels"]["global"]["exact"] == 1
    assert stats["levels"]["global"]["compressed"] == 2


def _hierarchical(rank, world, implementation):
    import torch
    import tetrad.torch as tt
    from torch.distributed.algorithms.model_averaging.hierarchical_model_averager import (
        HierarchicalModelAverager)
    model = _model(rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    if implementation == "tetrad":
        averager = tt.ModelAverager("hier:2:6", group_size=2)
    else:
        # torch 1.13's new_subgroups() refuses to run without CUDA although gloo needs
        # none: it is made to believe CUDA exists while the averager makes its groups.
        available = torch.cuda.is_available
        torch.cuda.is_available = lambda: True
        try:
            averager = HierarchicalModelAverager({2: 2, 6: world})
        finally:
            torch.cuda.is_available = available
    models = []
    for step in range(STEPS):
        _train(model, optimizer, step, rank)
        averager.average_parameters(model.parameters())
        models.append(_flat(model))
    return models


def test_hierarchical_equals_torch_and_averages_by_level():
    ours = distributed.run(4, _hierarchical, "tetrad")
    theirs = distributed.run(4, _hierarchical, "torch")
    for rank in range(4):
        for step in range(STEPS):
            assert _equal(ours[rank][step], theirs[rank][step]), f"rank {rank} step {step}"
    # Step 6: everyone agrees; step 8: only node groups {0, 1} and {2, 3} do.
    assert all(_equal(ours[r][6], ours[0][6]) for r in range(4))
    assert _equal(ours[0][8], ours[1][8]) and _equal(ours[2][8], ours[3][8])
    assert not _equal(ours[0][8], ours[2][8])


def _compressed(rank, world, spec):
    import torch
    import tetrad.torch as tt
    model = _model(rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    averager = tt.ModelAverager("local:2", compress=spec, seed=7)
    agreed = []
    for step in range(STEPS):
        _train(model, optimizer, step, rank)
        if averager.average_parameters(model.parameters()):
            agreed.append(_flat(model))
    saved = averager.state_dict()
    again = tt.ModelAverager("local:2", compress=spec, seed=7)
    again.load_state_dict(saved)
    stats = averager.levels["global"].hook.stats()
    residual = saved["hooks"]["global"]["buckets"]["model"][0][2]
    return agreed, tt.consensus_distance(list(model.parameters())), stats, len(residual), \
        again.step


@pytest.mark.parametrize("spec", ["topk:0.2,ef", "qsgd:4", "powersgd:1"])
def test_compressed_delta_leaves_every_rank_with_one_model(spec):
    results = distributed.run(3, _compressed, spec)
    for rank in range(1, 3):
        for step, flat in enumerate(results[rank][0]):
            assert _equal(flat, results[0][0][step]), f"{spec}: rank {rank}, averaging {step}"
    assert len(results[0][0]) == STEPS // 2
    assert results[0][1] > 0.0  # step 11 trained after the last averaging (step 10)
    stats = results[0][2]
    assert stats["calls"] == STEPS // 2 - 1  # the first averaging is exact
    assert stats["bytes_sent"] > 0
    assert results[0][3] > 0 and results[0][4] == STEPS


def _bad(rank, world, kwargs):
    import tetrad.torch as tt
    try:
        tt.ModelAverager(**kwargs)
    except ValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("kwargs, words", [
    (dict(schedule="local:0"), "H must be >= 1"),
    (dict(schedule="local:x"), "H must be an integer"),
    (dict(schedule="lokal:4"), "unknown kind 'lokal'"),
    (dict(schedule="post-local:4"), "takes 2 number"),
    (dict(schedule="hier:2:4", group_size=3), "does not divide"),
    (dict(schedule="local:4", compress="topk:0.01,eff"), "topk:0.01,eff"),
])
def test_bad_arguments_raise_value_error_with_one_line(kwargs, words):
    message = distributed.run(2, _bad, kwargs)[0]
    assert message is not None and words in message and "\n" not in message, message
