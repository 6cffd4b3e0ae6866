#!/usr/bin/env python3
"""The comm hook's own cost per iteration for each compressor (no network).

    PYTHONPATH=build/python /usr/bin/python3 bench/hook_overhead.py [--iters 10]

One process, a one-rank gloo group, one thread: HookState.reduce() on one
bucket holding the gradients of examples/ddp_mnist.py's cnn (1 663 370 floats,
its four weight matrices and four biases, as PowerSGD sees them), so what is
timed is the hook's encode, decode and bookkeeping, not the exchange (one
rank: the collectives return at once). Each call first copies the gradient
into the bucket (both columns pay it). Beside
it, in the same run, the work of torch's own fp16_compress_hook on the same
buffer (cast to fp16 and divide, then copy back). Prints the median over
--iters calls (after 2 warm-up calls) of wall and CPU milliseconds per call.
CPU time (this thread and the ones it waits for are not separated: the hook
runs on one thread here) is the figure that a loaded machine disturbs least.

    ... bench/hook_overhead.py --dtypes float32,float16,bfloat16 --rounds 3

compares, instead, the same hook on buckets of the same element count in each
dtype (half-precision buckets are read as they are where the compressor allows,
decoded into float32 and narrowed back: what that costs is what the ratio
measures), in --rounds alternating rounds: the median CPU ms per call over
rounds with its spread, and each dtype's ratio to float32. The bucket's refill
before each call is not timed in this mode.
"""
import argparse
import datetime
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
from ddp_mnist import Cnn  # noqa: E402

import tetrad.torch as tt  # noqa: E402

SPECS = ["none", "fp16", "bf16", "topk:0.01", "topk:0.01,ef", "randomk:0.01", "qsgd:16",
         "terngrad", "natural", "onebit", "sign", "efsign", "dgc:0.01", "gtopk:0.01",
         "threshold:0.001", "powersgd:2"]


def timed(call, iters, setup=None):
    """Median wall and CPU ms of call(); setup() (the bucket's refill) runs before each
    call, outside the timed region."""
    for _ in range(2):
        if setup is not None:
            setup()
        call()
    wall, cpu = [], []
    for _ in range(iters):
        if setup is not None:
            setup()
        w, c = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - w)
        cpu.append(time.process_time() - c)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def merged_specs(text):
    """Comma-separated specs, where a lone 'ef' belongs to the spec before it."""
    merged = []
    for s in (s.strip() for s in text.split(",")):
        if s == "ef":
            merged[-1] += ",ef"
        else:
            merged.append(s)
    return merged


def compare_dtypes(args, specs, parameters, shapes, gradient):
    dtypes = [getattr(torch, name.strip()) for name in args.dtypes.split(",")]
    names = [str(d).replace("torch.", "") for d in dtypes]
    cpu = {(spec, d): [] for spec in specs for d in dtypes}
    for _ in range(args.rounds):
        for spec in specs:
            for dtype in dtypes:  # alternating: every dtype once per round
                hook = tt.HookState(None, compress=spec, seed=1)
                key = hook.bucket_key(parameters)
                source = gradient.to(dtype)
                bucket = source.clone()

                def refill():
                    bucket.copy_(source)

                def call():
                    hook.reduce(bucket, key, shapes).wait()

                # The refill is not timed: torch 1.13's float16 copy_ alone costs 2.5x its
                # float32 one (0.49 against 0.19 ms here), which is not the hook's work.
                cpu[(spec, dtype)].append(timed(call, args.iters, refill)[1])
    print(f"{gradient.numel()} elements per bucket; CPU ms per call, median of "
          f"{args.rounds} rounds (min-max), each the median of {args.iters} calls")
    print("| hook | " + " | ".join(names) + " | " +
          " | ".join(f"{n} / float32" for n in names[1:]) + " |")
    print("|---" * (2 * len(names)) + "|")
    for spec in specs:
        cells, medians = [], []
        for dtype in dtypes:
            values = cpu[(spec, dtype)]
            medians.append(statistics.median(values))
            cells.append(f"{medians[-1]:.1f} ({min(values):.1f}-{max(values):.1f})")
        ratios = [f"{m / medians[0]:.2f}" for m in medians[1:]]
        print(f"| tetrad {spec} | " + " | ".join(cells + ratios) + " |", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--iters", type=int, default=10)
    parser.add_argument("--dtypes", default="",
                        help="compare these bucket dtypes (e.g. float32,float16,bfloat16)")
    parser.add_argument("--rounds", type=int, default=3, help="with --dtypes")
    parser.add_argument("--specs", default=",".join(SPECS),
                        help="comma-separated specs (a lone 'ef' joins the spec before it)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=0,
                            world_size=1, timeout=datetime.timedelta(seconds=60))
    parameters = list(reversed(list(Cnn().parameters())))  # DDP's first bucket order
    shapes = [list(p.shape) for p in parameters]
    gradient = torch.randn(sum(p.numel() for p in parameters), generator=torch.Generator()
                           .manual_seed(1)) * 0.01
    bucket = gradient.clone()

    def torch_fp16():
        bucket.copy_(gradient)  # as before every tetrad call below
        half = bucket.to(torch.float16).div_(1)
        bucket.copy_(half)

    if args.dtypes:
        compare_dtypes(args, merged_specs(args.specs), parameters, shapes, gradient)
        dist.destroy_process_group()
        return
    wall, cpu = timed(torch_fp16, args.iters)
    print(f"{gradient.numel()} floats in one bucket; median of {args.iters} calls, ms per call")
    print(f"| hook | path | wall ms | CPU ms |\n|---|---|---|---|")
    print(f"| torch fp16_compress_hook (cast + copy back) | — | {wall:.1f} | {cpu:.1f} |")
    for spec in merged_specs(args.specs):
        hook = tt.HookState(None, compress=spec, seed=1)
        key = hook.bucket_key(parameters)

        def call():
            bucket.copy_(gradient)
            hook.reduce(bucket, key, shapes).wait()

        wall, cpu = timed(call, args.iters)
        print(f"| tetrad {spec} | {hook.path} | {wall:.1f} | {cpu:.1f} |", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
