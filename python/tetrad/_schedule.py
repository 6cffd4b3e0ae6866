"""Averaging schedules of tetrad.torch.ModelAverager, parsed from the `tetrad train
--sync` forms: "local:H", "post-local:T:H", "hier:H1:H2" (see tetrad/_averager.py).

A Plan is an immutable value: what each optimizer step s = 0, 1, ... does ('global',
'node' or nothing). Bad specs raise ValueError with one line naming the schedule and the
problem.
"""
import os

KNOWN = "local:H, post-local:T:H, hier:H1:H2"


class Plan:
    """kind ('local', 'post-local', 'hier'), period H (H2 for hier), warmup T, node_period
    H1 and group_size (hier; 0 otherwise)."""

    def __init__(self, spec, period, warmup=0, node_period=0, group_size=0):
        self.kind = spec.split(":")[0]
        self.spec, self.period, self.warmup = spec, period, warmup
        self.node_period, self.group_size = node_period, group_size

    def synchronous(self, step: int) -> bool:
        """Post-local SGD's first phase: every step before T keeps the models equal."""
        return step < self.warmup

    def level_at(self, step: int):
        if step < self.warmup:
            return "global"
        since = step - self.warmup
        if since % self.period == 0:
            return "global"
        if self.node_period and since % self.node_period == 0:
            return "node"
        return None


def _integer(spec, text, name, minimum):
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"tetrad averaging schedule '{spec}': {name} must be an integer, "
                         f"got '{text}'") from None
    if value < minimum:
        raise ValueError(f"tetrad averaging schedule '{spec}': {name} must be >= {minimum}, "
                         f"got {value}")
    return value


def parse_averaging(spec, world, group_size=None):
    """The Plan of `spec` for a group of `world` ranks (group_size: hier only)."""
    if not isinstance(spec, str):
        raise ValueError(f"tetrad averaging schedule must be a string ({KNOWN}), got "
                         f"{type(spec).__name__}")
    parts = spec.split(":")
    kind, args = parts[0], parts[1:]
    arity = {"local": 1, "post-local": 2, "hier": 2}
    if kind not in arity:
        raise ValueError(f"tetrad averaging schedule '{spec}': unknown kind '{kind}' "
                         f"(known: {KNOWN})")
    if len(args) != arity[kind]:
        raise ValueError(f"tetrad averaging schedule '{spec}': '{kind}' takes "
                         f"{arity[kind]} number(s) ({KNOWN})")
    if kind == "local":
        return Plan(spec, _integer(spec, args[0], "H", 1))
    if kind == "post-local":
        return Plan(spec, _integer(spec, args[1], "H", 1),
                    warmup=_integer(spec, args[0], "T", 0))
    node_period = _integer(spec, args[0], "H1", 1)
    period = _integer(spec, args[1], "H2", 1)
    size = _group_size(spec, world, group_size)
    return Plan(spec, period, node_period=node_period, group_size=size)


def _group_size(spec, world, group_size):
    if group_size is None:
        text = os.environ.get("LOCAL_WORLD_SIZE")
        if text is None:
            raise ValueError(f"tetrad averaging schedule '{spec}': group_size is not given "
                             "and LOCAL_WORLD_SIZE is not set")
        group_size = text
    size = _integer(spec, str(group_size), "group_size", 1)
    if world % size != 0:
        raise ValueError(f"tetrad averaging schedule '{spec}': group_size {size} does not "
                         f"divide the group's {world} ranks")
    return size
