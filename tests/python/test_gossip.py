"""tetrad.torch.GossipOptimizer on 4 gloo ranks: consensus as the spectral gap predicts,
D-PSGD and CHOCO-SGD training, checkpoints, and bad arguments.

With a zero learning rate, a D-PSGD step is pure gossip x <- W x, and the consensus
distance (1/n) Σ‖x_i − x̄‖² shrinks per step by at most |λ₂|² (tetrad.Topology's
contraction() squared), with equality when the disagreement lies along λ₂'s eigenvector.
"""
import math

import pytest

import distributed

STEPS = 6


def _model(rank, size=40):
    import torch
    torch.manual_seed(rank)
    return torch.nn.Linear(size, 1, bias=False)


def _pure_gossip(rank, world, topology):
    import torch
    import tetrad.torch as tt
    model = _model(rank)
    optimizer = tt.GossipOptimizer(torch.optim.SGD(model.parameters(), lr=0.0),
                                   topology=topology)
    distances = [tt.consensus_distance(list(model.parameters()))]
    for _ in range(STEPS):
        for p in model.parameters():
            p.grad = torch.zeros_like(p)
        optimizer.step()
        distances.append(tt.consensus_distance(list(model.parameters())))
    return distances, optimizer.topology.contraction(), optimizer.stats()


@pytest.mark.parametrize("topology", ["ring", "torus:2x2", "exp", "exp:one-peer"])
def test_consensus_shrinks_as_the_spectral_gap_predicts(topology):
    distances, contraction, stats = distributed.run(4, _pure_gossip, topology)[0]
    assert distances[0] > 0.1
    bound = contraction ** 2
    for before, after in zip(distances, distances[1:]):
        if topology == "exp:one-peer":
            continue  # contraction is per step over a period of 2
        assert after <= before * bound * (1 + 1e-6) + 1e-12, (topology, distances, bound)
    # The bound is met, not beaten by luck: within 2x of |λ₂|^(2t) after t steps, except
    # where gossip reaches consensus outright (complete-like graphs, one-peer's period).
    if contraction > 1e-9:
        ratio = distances[STEPS] / distances[0]
        assert ratio >= bound ** STEPS / 2 or topology == "exp:one-peer", (ratio, bound)
    elif topology != "exp:one-peer":
        assert distances[1] < 1e-10 * distances[0]
    if topology == "exp:one-peer":  # exact average after log2(4) = 2 steps
        assert distances[2] < 1e-10 * distances[0]
    assert stats["bytes_sent"] > 0 and stats["steps"] == STEPS


def _regression(rank, world, algorithm, compress):
    """Decentralised least squares: every rank's data shares one true w; loss must fall and
    the ranks must agree."""
    import torch
    import tetrad.torch as tt
    truth = torch.linspace(-1, 1, 10).reshape(1, 10)
    model = _model(rank, 10)
    kwargs = dict(topology="ring", algorithm=algorithm)
    if algorithm == "choco":
        kwargs.update(compress=compress, gamma=0.4)
    optimizer = tt.GossipOptimizer(torch.optim.SGD(model.parameters(), lr=0.05), **kwargs)
    generator = torch.Generator().manual_seed(rank)
    losses = []
    for _ in range(150):
        x = torch.randn(16, 10, generator=generator)
        loss = torch.nn.functional.mse_loss(model(x), x @ truth.T)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss))
    saved = optimizer.state_dict()
    again = tt.GossipOptimizer(torch.optim.SGD(model.parameters(), lr=0.05), **kwargs)
    again.load_state_dict(saved)
    return (sum(losses[:10]) / 10, sum(losses[-10:]) / 10,
            tt.consensus_distance(list(model.parameters())), again.steps)


@pytest.mark.parametrize("algorithm, compress", [("dpsgd", "none"), ("choco", "topk:0.3"),
                                                 ("choco", "sign")])
def test_decentralised_training_converges_and_agrees(algorithm, compress):
    for first, last, consensus, steps in distributed.run(4, _regression, algorithm, compress):
        assert last < first / 20, (algorithm, first, last)
        assert consensus < 1e-3, consensus
        assert steps == 150


def _bad(rank, world, kwargs):
    import torch
    import tetrad.torch as tt
    try:
        tt.GossipOptimizer(torch.optim.SGD(_model(rank).parameters(), lr=0.1), **kwargs)
    except ValueError as error:
        return str(error)
    return None


@pytest.mark.parametrize("kwargs, words", [
    (dict(topology="rign"), "unknown topology 'rign'"),
    (dict(topology="torus:3x3"), "torus:3x3"),
    (dict(algorithm="adpsgd"), "algorithm 'adpsgd' is unknown"),
    (dict(compress="topk:0.1"), "needs algorithm='choco'"),
    (dict(algorithm="choco", compress="topk:0.1", gamma=1.5), "gamma must be in (0, 1]"),
    (dict(algorithm="choco", topology="exp:one-peer"), "time-varying"),
    (dict(algorithm="choco", compress="topk:O.1"), "topk:O.1"),
])
def test_bad_arguments_raise_value_error_with_one_line(kwargs, words):
    message = distributed.run(4, _bad, kwargs)[0]
    assert message is not None and words in message and "\n" not in message, message


def test_topology_bindings_match_the_theory():
    import tetrad
    ring = tetrad.parse_topology("ring", 8)
    assert ring.neighbours(0) == [1, 7]
    assert [w for _, w in ring.mixing_row(0)] == [1 / 3] * 3
    # Ring of n with weights 1/3: |λ₂| = (1 + 2 cos(2π/n)) / 3.
    assert math.isclose(ring.contraction(), (1 + 2 * math.cos(2 * math.pi / 8)) / 3,
                        rel_tol=1e-9)
    assert tetrad.parse_topology("exp:one-peer", 8).period == 3
    with pytest.raises(ValueError, match="rank 9 is outside"):
        ring.neighbours(9)
