#!/usr/bin/env python3
"""DDP with tetrad's comm hooks against plain DDP and torch's fp16 hook, side by side.

    PYTHONPATH=build/python /usr/bin/python3 bench/ddp_hooks.py [--rounds 3] [--iters 100]

Runs examples/ddp_mnist.py (the cnn on Fashion-MNIST, 2 gloo processes, one
thread each, batch 64 per rank) for every configuration below, in alternating
rounds (plain, torch-fp16, tetrad fp16, ... then again), and prints per
configuration the median over rounds of samples/s with its min-max spread,
the ratio of medians to plain DDP and to torch's fp16 hook, bytes sent per
iteration by rank 0 (examples/ddp_mnist.py says how each is counted), the
hook's own time per iteration (tetrad: encode + decode, or the whole protocol
for tetrad's own protocols) and the test accuracy reached. A markdown table
for docs/BENCHMARKS.md ends the output.

Optional (needs python3-torch and the built package); never part of `make test`.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "examples", "ddp_mnist.py")
CONFIGS = [("DDP (plain)", ["--hook", "plain"]),
           ("DDP + torch fp16 hook", ["--hook", "torch-fp16"]),
           ("DDP + tetrad fp16", ["--compress", "fp16"]),
           ("DDP + tetrad topk:0.01,ef", ["--compress", "topk:0.01,ef"]),
           ("DDP + tetrad powersgd:2", ["--compress", "powersgd:2"])]


def run_once(extra, args):
    command = [sys.executable, EXAMPLE, "--iters", str(args.iters), "--ranks", str(args.ranks),
               "--log-every", "0"] + extra
    out = subprocess.run(command, capture_output=True, text=True, check=False)
    if out.returncode != 0:
        sys.exit(f"ddp_hooks: {' '.join(command)} failed:\n{out.stdout}{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=100)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--only", default="",
                        help="comma-separated words: run the configurations whose name holds "
                             "one (plain DDP and torch's fp16 hook always run, as baselines)")
    args = parser.parse_args()
    words = [w for w in args.only.split(",") if w]
    configs = [(name, extra) for name, extra in CONFIGS
               if not words or "tetrad" not in name or any(w in name for w in words)]
    results = {name: [] for name, _ in configs}
    for r in range(args.rounds):
        for name, extra in configs:
            result = run_once(extra, args)
            results[name].append(result)
            print(f"round {r + 1}: {name}: {result['samples_per_s']} samples/s, "
                  f"accuracy {result['test_accuracy']}", flush=True)
    median = {name: statistics.median(x["samples_per_s"] for x in runs)
              for name, runs in results.items()}
    plain, fp16 = median["DDP (plain)"], median["DDP + torch fp16 hook"]
    print(f"\ncnn, Fashion-MNIST, {args.ranks} gloo processes x 1 thread, batch 64 per rank, "
          f"{args.iters} iterations; median of {args.rounds} alternating rounds (min-max)\n")
    print("| configuration | samples/s | × plain | × torch fp16 | bytes/iter (rank 0) "
          "| hook ms/iter | test accuracy |")
    print("|---|---|---|---|---|---|---|")
    for name, runs in results.items():
        speeds = [x["samples_per_s"] for x in runs]
        hook_ms = [x["hook_ms_per_iteration"] for x in runs if x["hook_ms_per_iteration"]]
        accuracy = statistics.median(x["test_accuracy"] for x in runs)
        print(f"| {name} | {median[name]:.1f} ({min(speeds):.1f}–{max(speeds):.1f}) "
              f"| {median[name] / plain:.2f} | {median[name] / fp16:.2f} "
              f"| {statistics.median(x['bytes_per_iteration'] for x in runs):,.0f} "
              f"| {statistics.median(hook_ms):.1f} | {accuracy:.3f} |"
              if hook_ms else
              f"| {name} | {median[name]:.1f} ({min(speeds):.1f}–{max(speeds):.1f}) "
              f"| {median[name] / plain:.2f} | {median[name] / fp16:.2f} "
              f"| {statistics.median(x['bytes_per_iteration'] for x in runs):,.0f} "
              f"| — | {accuracy:.3f} |")


if __name__ == "__main__":
    main()
