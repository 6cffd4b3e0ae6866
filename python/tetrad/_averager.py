"""Model averaging for PyTorch: Local SGD, post-local SGD and hierarchical averaging,
with the model delta optionally compressed by any tetrad compressor (tetrad.torch).

    averager = tt.ModelAverager("local:8", compress="topk:0.01,ef")
    for batch in data:
        loss(model(batch)).backward(); optimizer.step(); optimizer.zero_grad()
        averager.average_parameters(model.parameters())

Schedules (the `tetrad train --sync` forms, counted in optimizer steps s = 0, 1, ...):
  local:H         average every H steps (s % H == 0), as torch's PeriodicModelAverager
                  with period H.
  post-local:T:H  steps s < T are synchronous; from T on, every H steps ((s - T) % H == 0),
                  as torch's PostLocalSGDOptimizer. In the synchronous phase a DDP model
                  registers post_local_hook, which averages the gradients (all-reduced as
                  torch's post_localSGD_hook does; with a compressor, and unless
                  compress_warmup=False, through tetrad's DDP comm hook with that
                  compressor, so that no phase sends the model or gradient whole);
                  without it the averager averages the model itself at every such step, so
                  a plain model works too.
  hier:H1:H2      every H2 steps over the whole group, otherwise every H1 steps inside node
                  groups of `group_size` consecutive ranks (torch's HierarchicalModelAverager
                  with {H1: group_size, H2: world}).

Uncompressed (compress="none"), an averaging is torch's own arithmetic — flatten, divide by
the group size, all-reduce, unflatten — so it equals torch's averagers bit for bit.
Compressed, every rank keeps an anchor per level (the model after that level's last
averaging, identical on the level's ranks): it sends C(x - anchor + e) through a
tetrad.torch.HookState (error feedback e when the spec says ",ef"), and every rank of the
level sets x = anchor + the average of the decoded deltas. A level's first averaging is
exact (it sets the common anchor), so ranks may start from different models.

Threads: call from the training thread, after optimizer.step(), on every rank of the group
in the same order (averaging is collective).
"""
import torch
import torch.distributed as dist

from tetrad import _schedule, _tetrad
from tetrad._exchange import completed, ring_allreduce_bytes

_STATE_DICT_VERSION = 1


def _parameters(params):
    """Parameters from an iterable of Parameters or of an optimizer's param groups."""
    out = []
    for item in params:
        if isinstance(item, dict):
            out.extend(item["params"])
        else:
            out.append(item)
    return out


def average_exactly(params, group):
    """torch.distributed.algorithms.model_averaging.utils.average_parameters' arithmetic."""
    flat = torch.cat([p.data.reshape(-1) for p in params])
    flat /= dist.get_world_size(group)
    dist.all_reduce(flat, group=group)
    offset = 0
    for p in params:
        p.data = flat[offset:offset + p.numel()].view_as(p).type_as(p)
        offset += p.numel()


class _Level:
    """One averaging scope (the whole group, or this rank's node group): its process
    group and, when compressed, its anchor and HookState."""

    def __init__(self, name, group, compress, seed, timeout_s):
        self.name, self.group, self.anchor, self.hook = name, group, None, None
        self.exact, self.exact_bytes = 0, 0  # exact averagings and their modelled bytes
        if compress is not None:
            from tetrad.torch import HookState  # the hook module imports this one
            self.hook = HookState(group, compress=compress, seed=seed, timeout_s=timeout_s,
                                  check_finite=False)

    def average(self, params, exact=False):
        """Averages `params` over the level: exactly (torch's arithmetic) when the level is
        uncompressed, when `exact` or at its first averaging; else the compressed delta."""
        if self.hook is not None and not exact and self.anchor is not None:
            flat = torch.cat([p.data.reshape(-1).float() for p in params])
            if flat.numel() == self.anchor.numel():
                self._average_delta(params, flat)
                return
        average_exactly(params, self.group)
        self.exact += 1
        self.exact_bytes += ring_allreduce_bytes(4 * sum(p.numel() for p in params),
                                                 dist.get_world_size(self.group))
        if self.hook is not None:
            self.anchor = torch.cat([p.data.reshape(-1).float() for p in params])

    def _average_delta(self, params, flat):
        delta = flat.sub_(self.anchor)
        shapes = [list(p.shape) for p in params]
        averaged = self.hook.reduce(delta, "model", shapes).wait()
        self.anchor.add_(averaged)
        offset = 0
        for p in params:
            p.data.copy_(self.anchor[offset:offset + p.numel()].view_as(p))
            offset += p.numel()


class ModelAverager:
    """Periodic model averaging on one rank (see the module doc).

    schedule: "local:H", "post-local:T:H" or "hier:H1:H2" (ValueError otherwise).
    process_group: the ranks that average (None: the default group).
    compress: a tetrad compressor spec for the model delta ("none": exact averaging), and
        for post-local's synchronous gradients (see compress_warmup).
    seed: shared by all ranks (the compressor's streams).
    group_size: hier only: ranks per node group (consecutive ranks); must divide the
        group's size. Default: the LOCAL_WORLD_SIZE environment variable (torchrun's).
    compress_warmup: post-local with a compressor: post_local_hook compresses the
        synchronous phase's gradients too (True), or all-reduces them whole (False, torch's
        post_localSGD_hook).
    The constructor is collective (node groups are created with dist.new_group, and a
    compressed averager checks that all ranks agree on spec and seed).
    """

    def __init__(self, schedule: str, process_group=None, compress: str = "none",
                 seed: int = 0, group_size=None, timeout_s: float = 300.0,
                 compress_warmup: bool = True):
        if not dist.is_initialized():
            raise RuntimeError("tetrad ModelAverager: torch.distributed is not initialised")
        self.group = dist.group.WORLD if process_group is None else process_group
        world = dist.get_world_size(self.group)
        self.plan = _schedule.parse_averaging(schedule, world, group_size)
        self.schedule = self.plan.spec
        self.step = 0
        self._synced_step = -1  # the step whose gradients post_local_hook all-reduced
        self._gradient_bytes = 0  # post_local_hook's all-reduces (modelled as a ring)
        spec = None if _tetrad.Compressor(compress).is_identity else compress
        self.levels = {"global": _Level("global", self.group, spec, seed, timeout_s)}
        if self.plan.group_size:
            node = _node_group(self.group, world, self.plan.group_size)
            self.levels["node"] = _Level("node", node, spec, seed, timeout_s)
        self.spec = compress if spec is None else self.levels["global"].hook.spec
        self.seed = int(seed)
        # post_local_hook's gradients in the synchronous phase: tetrad's comm hook with the
        # averager's compressor (its own residuals), or a plain all-reduce (None).
        self.gradient_hook = None
        if spec is not None and compress_warmup and self.plan.warmup > 0:
            from tetrad.torch import HookState
            self.gradient_hook = HookState(self.group, compress=spec, seed=seed + 1,
                                           timeout_s=timeout_s)

    def level_at(self, step: int):
        """'global', 'node' or None: what averaging step `step` does (synchronous
        post-local steps report 'global')."""
        return self.plan.level_at(step)

    def average_parameters(self, params) -> bool:
        """Averages `params` (Parameters or an optimizer's param groups) if this step is an
        averaging step, then advances the step; True when it averaged."""
        level = self.plan.level_at(self.step)
        synchronous = self.plan.synchronous(self.step)
        if synchronous and self._synced_step == self.step:
            level = None  # the gradients were averaged by post_local_hook
        if level is not None:
            self.levels[level].average(_parameters(params), exact=synchronous)
        self.step += 1
        return level is not None

    def stats(self):
        """Totals since construction: averagings (exact and compressed, per level), and
        bytes_sent by this rank — the compressed deltas (the levels' HookState stats), the
        exact averagings and post_local_hook's gradient all-reduces, both counted as a ring
        all-reduce (2(p-1)/p of the float32 bytes), as HookState counts its all-reduces."""
        gradient = self._gradient_bytes
        if self.gradient_hook is not None:
            gradient += self.gradient_hook.stats()["bytes_sent"]
        out = {"step": self.step, "gradient_bytes": gradient, "levels": {}}
        total = gradient
        for name, level in self.levels.items():
            hook = level.hook.stats() if level.hook is not None else {"calls": 0,
                                                                     "bytes_sent": 0}
            out["levels"][name] = {"exact": level.exact, "exact_bytes": level.exact_bytes,
                                   "compressed": hook["calls"],
                                   "compressed_bytes": hook["bytes_sent"]}
            total += level.exact_bytes + hook["bytes_sent"]
        out["bytes_sent"] = total
        return out

    def state_dict(self):
        return {
            "version": _STATE_DICT_VERSION, "schedule": self.schedule, "spec": self.spec,
            "seed": self.seed, "step": self.step,
            "anchors": {name: level.anchor for name, level in self.levels.items()},
            "hooks": {name: level.hook.state_dict() for name, level in self.levels.items()
                      if level.hook is not None},
            "gradient_hook": (None if self.gradient_hook is None
                              else self.gradient_hook.state_dict()),
        }

    def load_state_dict(self, saved):
        for name in ("version", "schedule", "spec", "seed"):
            mine = _STATE_DICT_VERSION if name == "version" else getattr(self, name)
            if saved.get(name) != mine:
                raise ValueError(f"tetrad ModelAverager.load_state_dict: {name} is "
                                 f"{saved.get(name)!r} in the saved state, {mine!r} here")
        self.step = int(saved["step"])
        for name, level in self.levels.items():
            anchor = saved["anchors"].get(name)
            level.anchor = None if anchor is None else anchor.clone()
            if level.hook is not None:
                level.hook.load_state_dict(saved["hooks"][name])
        if self.gradient_hook is not None and saved.get("gradient_hook") is not None:
            self.gradient_hook.load_state_dict(saved["gradient_hook"])


def _node_group(group, world, group_size):
    """This rank's node group: consecutive ranks of `group`, group_size at a time. Every
    rank creates every node group (dist.new_group is collective)."""
    members = [dist.get_global_rank(group, r) if group is not dist.group.WORLD else r
               for r in range(world)]
    mine = None
    me = dist.get_rank(group)
    for first in range(0, world, group_size):
        made = dist.new_group(members[first:first + group_size])
        if first <= me < first + group_size:
            mine = made
    return mine


def post_local_hook(averager, bucket):
    """DDP comm hook of post-local SGD's synchronous phase (torch's post_localSGD_hook):
    while the averager's step is before T, the bucket is averaged over the group (all-reduced
    whole, or through the averager's gradient_hook when it compresses the warm-up);
    afterwards the local gradient is used as it is.
        ddp_model.register_comm_hook(averager, tt.post_local_hook)"""
    if not isinstance(averager, ModelAverager):
        raise TypeError(f"tetrad post_local_hook: state must be a ModelAverager, "
                        f"got {type(averager).__name__}")
    tensor = bucket.buffer()
    if not averager.plan.synchronous(averager.step):
        return completed(tensor)
    averager._synced_step = averager.step
    if averager.gradient_hook is not None:
        from tetrad.torch import comm_hook
        return comm_hook(averager.gradient_hook, bucket)
    world = dist.get_world_size(averager.group)
    averager._gradient_bytes += ring_allreduce_bytes(tensor.numel() * tensor.element_size(), world)
    tensor.div_(world)
    work = dist.all_reduce(tensor, group=averager.group, async_op=True)
    return work.get_future().then(lambda _: tensor)


class AveragedOptimizer:
    """An optimizer followed by a ModelAverager (torch's PostLocalSGDOptimizer): step()
    runs the optimizer's step, then averager.average_parameters(param_groups)."""

    def __init__(self, optimizer, averager: ModelAverager):
        self.optimizer, self.averager = optimizer, averager
        self.param_groups = optimizer.param_groups
        self.averaged = False  # whether the last step() averaged

    def step(self, closure=None):
        loss = self.optimizer.step(closure)
        self.averaged = self.averager.average_parameters(self.optimizer.param_groups)
        return loss

    def zero_grad(self, set_to_none: bool = False):
        self.optimizer.zero_grad(set_to_none=set_to_none)

    def state_dict(self):
        return {"optimizer": self.optimizer.state_dict(),
                "averager": self.averager.state_dict()}

    def load_state_dict(self, saved):
        self.optimizer.load_state_dict(saved["optimizer"])
        self.averager.load_state_dict(saved["averager"])
