"""Decentralised training for PyTorch: D-PSGD and CHOCO-SGD over a tetrad topology, as an
optimizer wrapper (tetrad.torch.GossipOptimizer).

    optimizer = tt.GossipOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                   topology="ring", algorithm="dpsgd")
    loss(model(batch)).backward(); optimizer.step(); optimizer.zero_grad()

Why an optimizer wrapper and not a DDP comm hook: a comm hook returns one gradient that
every replica applies, and DDP assumes the replicas are equal (it broadcasts rank 0's
parameters and buffers). Gossip mixes *parameters* with neighbours, and the ranks' models
differ by design; expressing the mix as a gradient would depend on the optimizer (momentum,
weight decay). So the model is a plain module, each rank computes its gradient, and step()
does the method's update:
  dpsgd  (Lian et al., NeurIPS 2017)       x_i <- Σ_j w_ij x_j, then the optimizer's step
         with the gradient taken at the old x_i: x_i^{t+1} = Σ_j w_ij x_j^t - η g_i(x_i^t).
         Any topology, time-varying ones (exp:one-peer) included.
  choco  (Koloskova et al., ICML 2019)     the optimizer's step, then one CHOCO gossip step
         with compressed differences: q_i = C(x_i - x̂_i), x̂_j += q_j on the closed
         neighbourhood, x_i += γ Σ_j w_ij (x̂_j - x̂_i). Static topologies only.
The mixing and CHOCO steps are tetrad's C++ steps (arch/gossip/), the ones `tetrad train
--arch gossip:TOPO` runs, over torch.distributed point-to-point (gloo) through a tetrad
Transport; weights are Metropolis–Hastings (tetrad.Topology).

Threads: the training thread, every rank of the group calling step() in the same order.
"""
import torch
import torch.distributed as dist

from tetrad import _tetrad
from tetrad._dist_endpoint import DistEndpoint

_STATE_DICT_VERSION = 1
ALGORITHMS = ("dpsgd", "choco")


def _flat(params):
    return torch.cat([p.data.reshape(-1).float() for p in params])


def _write(params, flat):
    offset = 0
    for p in params:
        p.data.copy_(flat[offset:offset + p.numel()].view_as(p))
        offset += p.numel()


class GossipOptimizer:
    """An optimizer whose step() is followed (choco) or preceded (dpsgd) by gossip.

    optimizer: any torch optimizer over this rank's parameters.
    topology: a tetrad topology spec (tetrad.known_topologies(): ring, torus:RxC, exp,
        exp:one-peer, complete, random:D[:SEED], file:PATH) for the group's size.
    algorithm: "dpsgd" or "choco".
    compress: choco only: the compressor of x - x̂ (e.g. "topk:0.01"; ",ef" is allowed
        but not needed: x - x̂ carries the error forward). dpsgd sends full parameters.
    gamma: choco's consensus step size in (0, 1] (default 1 for "none", else 0.5).
    seed: shared by all ranks (random topologies, the compressor's streams).
    """

    def __init__(self, optimizer, topology: str = "ring", algorithm: str = "dpsgd",
                 compress: str = "none", gamma=None, process_group=None, seed: int = 0,
                 timeout_s: float = 300.0):
        if not dist.is_initialized():
            raise RuntimeError("tetrad GossipOptimizer: torch.distributed is not initialised")
        if algorithm not in ALGORITHMS:
            raise ValueError(f"tetrad GossipOptimizer: algorithm '{algorithm}' is unknown "
                             f"(known: {', '.join(ALGORITHMS)})")
        self.optimizer = optimizer
        self.param_groups = optimizer.param_groups
        self.group = dist.group.WORLD if process_group is None else process_group
        self.rank, self.world_size = dist.get_rank(self.group), dist.get_world_size(self.group)
        if not isinstance(topology, str):
            raise ValueError(f"tetrad GossipOptimizer: topology must be a spec string, got "
                             f"{type(topology).__name__}")
        self.topology = _tetrad.parse_topology(topology, self.world_size, int(seed) or 1)
        self.algorithm, self.seed, self.steps = algorithm, int(seed), 0
        self.compressor = _tetrad.Compressor(compress)
        self._check_options(compress, gamma)
        self.gamma = float(gamma if gamma is not None else
                           (1.0 if self.compressor.is_identity else 0.5))
        self.transport = _tetrad.Transport(DistEndpoint(self.group, timeout_s), self.rank,
                                           self.world_size, timeout_s)
        self._mixer = _tetrad.GossipMixer()
        self._choco = None

    def _check_options(self, compress, gamma):
        if self.algorithm == "dpsgd" and not self.compressor.is_identity:
            raise ValueError(f"tetrad GossipOptimizer: compress='{compress}' needs "
                             "algorithm='choco' (D-PSGD sends full parameters)")
        if self.algorithm == "dpsgd" and gamma is not None:
            raise ValueError("tetrad GossipOptimizer: gamma is CHOCO's step size; D-PSGD "
                             "has none")
        if self.algorithm == "choco" and self.topology.time_varying:
            raise ValueError(f"tetrad GossipOptimizer: topology '{self.topology.spec}' is "
                             "time-varying; CHOCO needs a static one")
        if gamma is not None and not 0.0 < float(gamma) <= 1.0:
            raise ValueError(f"tetrad GossipOptimizer: gamma must be in (0, 1], got {gamma}")

    def parameters(self):
        return [p for group in self.optimizer.param_groups for p in group["params"]]

    def step(self, closure=None):
        params = self.parameters()
        if self.algorithm == "dpsgd":
            flat = _flat(params)
            self._mixer.mix(self.transport, self.topology, self.steps, flat.numpy())
            _write(params, flat)
            loss = self.optimizer.step(closure)
        else:
            loss = self.optimizer.step(closure)
            flat = _flat(params)
            if self._choco is None:
                self._choco = _tetrad.ChocoState(self.topology, self.rank, flat.numel(),
                                                 self.seed)
            _tetrad.choco_step(self.transport, self.topology, flat.numpy(), self.compressor,
                               self._choco, gamma=self.gamma)
            _write(params, flat)
        self.steps += 1
        return loss

    def zero_grad(self, set_to_none: bool = False):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def stats(self):
        """Bytes and messages this rank sent through gossip since construction."""
        return {"bytes_sent": self.transport.bytes_sent,
                "messages_sent": self.transport.messages_sent, "steps": self.steps}

    def state_dict(self):
        return {"version": _STATE_DICT_VERSION, "topology": self.topology.spec,
                "algorithm": self.algorithm, "spec": self.compressor.spec, "rank": self.rank,
                "steps": self.steps, "optimizer": self.optimizer.state_dict(),
                "choco": None if self._choco is None else self._choco.serialize()}

    def load_state_dict(self, saved):
        mine = {"version": _STATE_DICT_VERSION, "topology": self.topology.spec,
                "algorithm": self.algorithm, "spec": self.compressor.spec, "rank": self.rank}
        for name, value in mine.items():
            if saved.get(name) != value:
                raise ValueError(f"tetrad GossipOptimizer.load_state_dict: {name} is "
                                 f"{saved.get(name)!r} in the saved state, {value!r} here")
        self.steps = int(saved["steps"])
        self.optimizer.load_state_dict(saved["optimizer"])
        self._choco = (None if saved["choco"] is None
                       else _tetrad.ChocoState.deserialize(saved["choco"]))


def consensus_distance(params, process_group=None) -> float:
    """(1/n) Σ_i ‖x_i - x̄‖² over the group's ranks: how far the models are from agreeing
    (two all-reduces; collective)."""
    group = dist.group.WORLD if process_group is None else process_group
    n = dist.get_world_size(group)
    flat = torch.cat([p.data.reshape(-1).double() for p in params])
    mean = flat.clone()
    dist.all_reduce(mean, group=group)
    mean /= n
    distance = torch.tensor([float(((flat - mean) ** 2).sum())], dtype=torch.float64)
    dist.all_reduce(distance, group=group)
    return float(distance.item()) / n
