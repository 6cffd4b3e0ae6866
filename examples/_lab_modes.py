"""Model averaging and gossip for examples/ddp_mnist.py (its --average and --gossip).

--average SCHEDULE keeps the model in DDP, whose comm hook syncs nothing once local SGD
has started, and averages the model after every optimizer.step() that the schedule names:
  local:H         every H steps (steps 0, H, 2H, ...)
  post-local:T:H  gradients all-reduced in the first T steps, then every H steps from T
  hier:H1:H2      every H2 steps over all ranks, otherwise every H1 steps inside node
                  groups of --group-size consecutive ranks (default 2)
with
  --average-impl tetrad  tetrad.torch.ModelAverager (with --compress SPEC the model delta
                         is compressed) and tetrad.torch.post_local_hook on DDP, which
                         all-reduces the gradients in post-local's first T steps and
                         returns the local gradients afterwards (from step 0 for local:H
                         and hier:H1:H2). The loop calls optimizer.step() and then
                         averager.average_parameters() (what tt.AveragedOptimizer.step
                         does).
  --average-impl torch   torch's PostLocalSGDOptimizer over PeriodicModelAverager(period=H,
                         warmup_steps=T) (T = 0 for local:H) or, for hier,
                         HierarchicalModelAverager({H1: G, H2: world}) (its node
                         groups made with dist.new_group: torch 1.13's
                         dist.new_subgroups refuses to run without CUDA); DDP runs torch's
                         post_localSGD_hook with PostLocalSGDState(start_localSGD_iter=T,
                         post_local_gradient_allreduce=False): the same all-reduce in the
                         first T steps, local gradients afterwards (torch's default would
                         all-reduce them inside each host's ranks, one rank per host in
                         bench/ddp_lab.py).
--gossip TOPO trains a plain module (no DDP: the ranks' models differ by design) with
tetrad.torch.GossipOptimizer over tetrad topology TOPO: --gossip-algorithm dpsgd (default,
full-precision parameters) or choco (--compress SPEC on x - x_hat, --gamma). Evaluation
reads rank 0's model; the JSON line also holds the final consensus distance
(1/n) sum_i |x_i - mean x|^2 (tt.consensus_distance, off the clock), here for --average
too.

Bytes per iteration (rank 0's total over the run / iterations):
  tetrad's averager  ModelAverager.stats()["bytes_sent"]: the compressed averagings as
                     its HookStates count them, plus every exact averaging (uncompressed,
                     or a level's first, which sets the anchor) and every gradient
                     all-reduce of post_local_hook counted as a ring all-reduce over the
                     ranks taking part: 2(p-1)/p x 4 bytes x elements.
  torch's averagers  the same ring count for each averaging torch's averager does (the
                     steps the schedule names, over the world or a node group of G) and
                     for each of the first T steps' gradient all-reduces.
  gossip             GossipOptimizer.stats()["bytes_sent"]: the parameters (dpsgd) or
                     compressed differences (choco) this rank sent to its neighbours.
"""
import collections

import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

def ring_bytes(elements, p, wire=4):
    """Bytes one rank sends in a ring all-reduce of `elements` values of `wire` bytes."""
    return 2 * (p - 1) * elements * wire / p


def node_group(world, size):
    """This rank's group of `size` consecutive ranks (what dist.new_subgroups makes);
    collective: every rank creates every group."""
    mine = None
    for first in range(0, world, size):
        group = dist.new_group(list(range(first, first + size)))
        if first <= dist.get_rank() < first + size:
            mine = group
    return mine


def add_arguments(parser):
    group = parser.add_argument_group("model averaging and gossip (examples/_lab_modes.py)")
    group.add_argument("--average", default="", metavar="SCHEDULE",
                       help="local:H, post-local:T:H or hier:H1:H2: periodic model averaging "
                            "instead of gradient all-reduce")
    group.add_argument("--average-impl", choices=["tetrad", "torch"], default=None,
                       help="whose averager runs --average (default tetrad)")
    group.add_argument("--group-size", type=int, default=None,
                       help="hier: ranks per node group (consecutive ranks; default 2)")
    group.add_argument("--gossip", default="", metavar="TOPO",
                       help="decentralised training over a tetrad topology (ring, exp, ...)")
    group.add_argument("--gossip-algorithm", choices=["dpsgd", "choco"], default=None,
                       help="with --gossip (default dpsgd)")
    group.add_argument("--gamma", type=float, default=None,
                       help="choco's consensus step size in (0, 1]")


def check(args):
    """A one-line complaint about a bad combination of options, or None; fills in the
    defaults of --average-impl, --group-size and --gossip-algorithm."""
    if args.average and args.gossip:
        return "--gossip and --average are two different methods; pick one"
    if args.hook is not None and (args.average or args.gossip):
        return ("--hook picks how DDP reduces gradients; --average sets its own hook, "
                "--gossip uses none")
    if args.average_impl is not None and not args.average:
        return "--average-impl wants --average"
    if (args.gossip_algorithm is not None or args.gamma is not None) and not args.gossip:
        return "--gossip-algorithm and --gamma want --gossip"
    if args.average:
        return _check_average(args)
    if args.gossip:
        return _check_gossip(args)
    if args.group_size is not None:
        return "--group-size wants --average hier:H1:H2"
    return None


def _schedule(args, world):
    """The --average plan (tetrad.torch.parse_schedule; hier's group of --group-size, 2 by
    default)."""
    import tetrad.torch as tt
    return tt.parse_schedule(args.average, world, args.group_size or 2)


def _check_average(args):
    try:
        schedule = _schedule(args, args.ranks)
    except ValueError as e:
        return f"--average: {e}"
    args.average_impl = args.average_impl or "tetrad"
    if args.average_impl == "torch" and args.compress != "none":
        return "--compress compresses tetrad's averaging; torch's averagers send the model whole"
    if schedule.kind != "hier":
        return None if args.group_size is None else "--group-size wants --average hier:H1:H2"
    args.group_size = schedule.group_size
    return None


def _check_gossip(args):
    import tetrad
    args.gossip_algorithm = args.gossip_algorithm or "dpsgd"
    try:
        topology = tetrad.parse_topology(args.gossip, args.ranks, args.seed or 1)
    except ValueError as e:
        return f"--gossip: {e}"
    if args.gossip_algorithm == "dpsgd" and args.compress != "none":
        return "--compress wants --gossip-algorithm choco (D-PSGD sends full parameters)"
    if args.gossip_algorithm == "dpsgd" and args.gamma is not None:
        return "--gamma is CHOCO's step size; it wants --gossip-algorithm choco"
    if args.gamma is not None and not 0.0 < args.gamma <= 1.0:
        return f"--gamma must be in (0, 1], got {args.gamma}"
    if args.gossip_algorithm == "choco" and topology.time_varying:
        return f"--gossip {args.gossip} is time-varying; CHOCO needs a static topology"
    return None


def build(args, module, make_optimizer):
    """The training set-up of --average or --gossip (see ddp_mnist.HookTraining)."""
    return (Averaging if args.average else Gossip)(args, module, make_optimizer)


class Averaging:
    """DDP with a comm hook that syncs nothing after warm-up, and periodic averaging."""

    def __init__(self, args, module, make_optimizer):
        self.world = dist.get_world_size()
        self.args, self.schedule, self.module = args, _schedule(args, self.world), module
        self.elements = sum(p.numel() for p in module.parameters())
        self.model = DistributedDataParallel(module, bucket_cap_mb=args.bucket_mb)
        self.local = make_optimizer(self.model.parameters())
        self.exact_bytes = 0.0  # the ring-counted all-reduces (module doc)
        self.steps = 0
        if args.average_impl == "torch":
            self._torch()
        else:
            import tetrad.torch as tt
            self.averager = tt.ModelAverager(args.average, compress=args.compress,
                                             seed=args.seed, group_size=args.group_size)
            self.model.register_comm_hook(self.averager, tt.post_local_hook)
            self.hooks = [level.hook for level in self.averager.levels.values()
                          if level.hook is not None]

    def _torch(self):
        from torch.distributed.algorithms.ddp_comm_hooks import post_localSGD_hook as post
        from torch.distributed.algorithms.model_averaging import averagers
        from torch.distributed.algorithms.model_averaging import hierarchical_model_averager
        from torch.distributed.optim import PostLocalSGDOptimizer
        plan = self.schedule
        state = post.PostLocalSGDState(process_group=None, subgroup=None,
                                       start_localSGD_iter=plan.warmup,
                                       post_local_gradient_allreduce=False)
        self.model.register_comm_hook(state, post.post_localSGD_hook)
        if plan.kind == "hier":
            # {H1: G, H2: world}, but torch 1.13's dist.new_subgroups, which the averager
            # calls for a level smaller than the world, wants CUDA: it is built with the
            # world at both levels, and H1's group replaced by this rank's node group.
            levels = collections.OrderedDict([(plan.node_period, self.world),
                                              (plan.period, self.world)])
            averager = hierarchical_model_averager.HierarchicalModelAverager(levels)
            if self.args.group_size < self.world and plan.node_period != plan.period:
                averager.period_process_group_dict[plan.node_period] = \
                    node_group(self.world, self.args.group_size)
        else:
            averager = averagers.PeriodicModelAverager(period=plan.period,
                                                       warmup_steps=plan.warmup)
        self.optimizer = PostLocalSGDOptimizer(self.local, averager)
        self.hooks = []

    def zero_grad(self):
        self.local.zero_grad()

    def step(self):
        s = self.steps
        if self.args.average_impl == "torch":
            self.optimizer.step()
            level = self.schedule.level_at(s)
        else:  # what tt.AveragedOptimizer.step() does; the averager counts its bytes
            self.local.step()
            self.averager.average_parameters(self.local.param_groups)
            level = None
        if level is not None:
            ranks = self.world if level == "global" else self.args.group_size
            self.exact_bytes += ring_bytes(self.elements, ranks)
        self.steps += 1

    def traffic(self, iters):
        """(bytes rank 0 sent per iteration, seconds of compression per iteration or None)."""
        stats = [hook.stats() for hook in self.hooks]
        sent = (self.averager.stats()["bytes_sent"] if self.args.average_impl == "tetrad"
                else self.exact_bytes)
        overhead = sum(s["encode_s"] + s["decode_s"] + s["protocol_s"] for s in stats)
        return sent / iters, (overhead / iters if stats else None)

    def finish(self):
        """Collective, off the clock: how far apart the ranks' models ended."""
        import tetrad.torch as tt
        return {"consensus_distance": tt.consensus_distance(self.module.parameters())}

    def describe(self):
        tetrad = self.args.average_impl == "tetrad"
        return {"hook": "tetrad post_local_hook" if tetrad else "torch post_localSGD_hook",
                "compress": self.args.compress if tetrad else None,
                "average": self.schedule.spec, "average_impl": self.args.average_impl,
                "group_size": self.args.group_size}

    def label(self):
        compress = f" {self.args.compress}" if self.args.compress != "none" else ""
        return f"{self.args.average_impl} {self.schedule.spec}{compress}"


class Gossip:
    """A plain module and tetrad.torch.GossipOptimizer (D-PSGD or CHOCO-SGD)."""

    def __init__(self, args, module, make_optimizer):
        import tetrad.torch as tt
        self.args, self.model, self.module = args, module, module
        self.optimizer = tt.GossipOptimizer(make_optimizer(module.parameters()),
                                            topology=args.gossip,
                                            algorithm=args.gossip_algorithm,
                                            compress=args.compress, gamma=args.gamma,
                                            seed=args.seed)

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        self.optimizer.step()

    def traffic(self, iters):
        return self.optimizer.stats()["bytes_sent"] / iters, None

    def finish(self):
        import tetrad.torch as tt
        return {"consensus_distance": tt.consensus_distance(self.module.parameters())}

    def describe(self):
        choco = self.args.gossip_algorithm == "choco"
        return {"hook": None, "compress": self.args.compress if choco else None,
                "gossip": self.args.gossip, "gossip_algorithm": self.args.gossip_algorithm,
                "gamma": self.optimizer.gamma if choco else None}

    def label(self):
        compress = f" {self.args.compress}" if self.args.compress != "none" else ""
        return f"{self.args.gossip_algorithm} {self.args.gossip}{compress}"
