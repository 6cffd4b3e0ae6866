#!/usr/bin/env python3
"""PyTorch DDP against tetrad on a real shaped link, side by side in alternating rounds.

    sudo PYTHONPATH=build/python /usr/bin/python3 bench/ddp_lab.py [--rounds 3] [--iters 300]

Builds a two-host lab with scripts/netlab.sh (two network namespaces joined
by tbf-shaped veth links, 200 Mbit/s each way by default) and runs the cnn on
Fashion-MNIST, batch 64 per rank, SGD with momentum 0.9 and weight decay
5e-4 at lr 0.05, one thread per rank, one rank per host:

  DDP (gloo, GLOO_SOCKET_IFNAME=eth0; examples/ddp_mnist.py with --rank and
  --master): plain, torch's fp16_compress_hook, tetrad's comm hook with fp16,
  topk:0.01,ef and powersgd:2 (torch's own PowerSGD hook aborts in gloo with
  torch 1.13 and is not run);
  model averaging with post-local SGD, POST_LOCAL = post-local:50:8 (50
  synchronous steps, then an averaging every 8): "torch post-local" (torch's
  PostLocalSGDOptimizer, PeriodicModelAverager and post_localSGD_hook),
  "tetrad post-local" (tetrad.torch.ModelAverager, uncompressed: torch's
  arithmetic) and "tetrad post-local topk" (POST_LOCAL_TOPK = topk:0.1,ef on the
  synchronous phase's gradients and on the model delta);
  "dpsgd ring" (tetrad.torch.GossipOptimizer, D-PSGD on a ring, a plain
  module: rank 0's model is evaluated);
  tetrad train --cluster mpi under the lab's mpirun (--bind-to none):
  --sched none and ddp (DDP's own buckets: a bucket closes once it reaches
  25 MiB, the first 1 MiB; sched/ddp_buckets.h) uncompressed, fp16 and
  topk:0.01,ef on fused buckets; with --all also DDP + tetrad's powersgd:2
  hook, tetrad --sched fusion:25MiB (buckets of at most 25 MiB, the first
  at most 1 MiB: on the cnn fc1.weight misses the first bucket), fp16 and
  topk:0.01,ef on DDP's buckets (--sched ddp, the buckets DDP's hooks get),
  wfbp, mgwfbp, priority (1 MiB chunks, front layers first, the next
  forward starting layer by layer as its updates arrive; --on-nonfinite off,
  since the guard waits for the whole exchange and DDP has no guard), and
  tetrad powersgd:2.

Every configuration trains --iters iterations and evaluates every
--eval-every on the first --test-samples test images with the clock paused
(both sides), so each run gives samples/s over its training time, the
training time at which test accuracy first reached --target (0.85), bytes
sent per iteration by rank 0 and the final accuracy. Configurations alternate
within each round; the table gives medians over rounds with min-max spreads
and the ratios of medians to plain DDP and to DDP's best working hook.

Needs root (network namespaces), ip, tc and nft (scripts/netlab.sh check),
python3-torch, and a built tetrad (build/tetrad, build/python). Exits 77
where the lab cannot be built. Never part of `make test`.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
NETLAB = os.path.join(ROOT, "scripts", "netlab.sh")
EXAMPLE = os.path.join(ROOT, "examples", "ddp_mnist.py")
SKIP = 77

# Post-local SGD's schedule for every averaging configuration: 50 synchronous steps (the
# fast early phase, about a fifth of the default run), then one model averaging every 8
# steps, an eighth of DDP's all-reduces of the cnn's 6.65 MB.
POST_LOCAL = "post-local:50:8"
# Top-k 10% with error feedback on the synchronous phase's gradients and on the model delta:
# on loopback it reaches 0.85 at iteration 225, as the uncompressed averager does (1%: 300).
POST_LOCAL_TOPK = "topk:0.1,ef"
DDP_CONFIGS = [("DDP (plain)", ["--hook", "plain"]),
               ("DDP + torch fp16 hook", ["--hook", "torch-fp16"]),
               ("DDP + tetrad fp16 hook", ["--compress", "fp16"]),
               ("DDP + tetrad topk:0.01,ef hook", ["--compress", "topk:0.01,ef"]),
               # Model averaging and gossip (examples/_lab_modes.py).
               ("torch post-local", ["--average", POST_LOCAL, "--average-impl", "torch"]),
               ("tetrad post-local", ["--average", POST_LOCAL]),
               ("tetrad post-local topk", ["--average", POST_LOCAL, "--compress", POST_LOCAL_TOPK]),
               ("dpsgd ring", ["--gossip", "ring"])]
TETRAD_CONFIGS = [("tetrad none", ["--sched", "none"]),
                  ("tetrad ddp buckets", ["--sched", "ddp"]),
                  ("tetrad fp16", ["--compress", "fp16"]),
                  ("tetrad topk:0.01,ef", ["--compress", "topk:0.01,ef"])]
# With --all (each round then takes about half as long again).
EXTRA_DDP_CONFIGS = [("DDP + tetrad powersgd:2 hook", ["--compress", "powersgd:2"])]
EXTRA_TETRAD_CONFIGS = [("tetrad fusion:25MiB", ["--sched", "fusion:25MiB"]),
                        ("tetrad fp16, ddp buckets", ["--compress", "fp16", "--sched", "ddp"]),
                        ("tetrad topk:0.01,ef, ddp buckets",
                         ["--compress", "topk:0.01,ef", "--sched", "ddp"]),
                        ("tetrad wfbp", ["--sched", "wfbp"]),
                        ("tetrad mgwfbp", ["--sched", "mgwfbp"]),
                        # Priority lets the next forward start layer by layer as updates
                        # arrive; the guard would wait for the whole exchange first
                        # (docs/scheduling.md), and DDP has none.
                        ("tetrad priority", ["--sched", "priority", "--on-nonfinite", "off"]),
                        ("tetrad powersgd:2", ["--compress", "powersgd:2"])]


def netlab(args, *command, capture=True):
    full = ["sh", NETLAB, "-k", str(args.lab)] + list(command)
    return subprocess.run(full, capture_output=capture, text=True, check=False)


def fail(message):
    print(f"ddp_lab: {message}", file=sys.stderr)
    sys.exit(1)


def run_ddp(args, extra, port, log):
    """Rank 1 on host 1, rank 0 on host 0; returns rank 0's JSON line as a dict."""
    hosts = netlab(args, "hosts").stdout.split()
    common = [sys.executable, EXAMPLE, "--ranks", "2", "--master", f"{hosts[0]}:{port}",
              "--iters", str(args.iters), "--eval-every", str(args.eval_every),
              "--target-accuracy", str(args.target), "--test-samples", str(args.test_samples),
              "--log-every", "0"] + extra
    env = ["env", "GLOO_SOCKET_IFNAME=eth0", f"PYTHONPATH={os.path.join(ROOT, 'build', 'python')}"]
    with open(log + ".rank1", "w") as out1:
        peer = subprocess.Popen(["sh", NETLAB, "-k", str(args.lab), "exec", "1"] + env + common
                                + ["--rank", "1"], stdout=out1, stderr=subprocess.STDOUT)
        rank0 = netlab(args, "exec", "0", *env, *common, "--rank", "0")
        peer_status = peer.wait(timeout=600)
    with open(log, "w") as f:
        f.write(rank0.stdout + rank0.stderr)
    if rank0.returncode != 0 or peer_status != 0:
        fail(f"DDP run {' '.join(extra)} failed (log {log}, {log}.rank1)")
    result = json.loads(rank0.stdout.strip().splitlines()[-1])
    return {"samples_per_s": result["samples_per_s"], "time_to_target": result["time_to_target"],
            "iterations_to_target": result["iterations_to_target"],
            "bytes_per_iteration": result["bytes_per_iteration"],
            "test_accuracy": result["test_accuracy"]}


def run_tetrad(args, extra, folder):
    tetrad = os.path.join(ROOT, "build", "tetrad")
    command = ["mpirun", "-np", "2", "-x", "OMP_NUM_THREADS=1", tetrad, "train",
               "--cluster", "mpi", "--quiet", "--model", "cnn", "--batch-size", "64",
               "--lr", "0.05", "--threads", "1", "--max-iters", str(args.iters),
               "--eval-every", str(args.eval_every), "--test-samples", str(args.test_samples),
               "--target-accuracy", str(args.target), "--timeline", "off",
               "--out", folder] + extra
    out = netlab(args, *command)
    with open(folder + ".log", "w") as f:
        f.write(out.stdout + out.stderr)
    if out.returncode != 0:
        fail(f"tetrad run {' '.join(extra)} failed (log {folder}.log)")
    with open(os.path.join(folder, "summary.json")) as f:
        summary = json.load(f)
    return {"samples_per_s": summary["throughput_samples_per_s"],
            "time_to_target": summary["time_to_target"],
            "iterations_to_target": summary["iterations_to_target"],
            "bytes_per_iteration": summary["bytes_sent_per_rank"][0] / summary["iterations"],
            "test_accuracy": summary["final_test_accuracy"]}


def select(args):
    """(name, kind, arguments) of the configurations to run: kind 'ddp' runs
    examples/ddp_mnist.py, 'tetrad' tetrad train."""
    words = [w for w in args.only.split(",") if w]
    ddp = DDP_CONFIGS + (EXTRA_DDP_CONFIGS if args.all else [])
    ours = TETRAD_CONFIGS + (EXTRA_TETRAD_CONFIGS if args.all else [])
    configs = [(name, "ddp", extra) for name, extra in ddp] + \
              [(name, "tetrad", extra) for name, extra in ours]
    return [c for c in configs
            if not words or c[0] in ("DDP (plain)", "DDP + torch fp16 hook")
            or any(w in c[0] for w in words)]


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iters", type=int, default=250)
    parser.add_argument("--eval-every", type=int, default=25)
    parser.add_argument("--all", action="store_true",
                        help="also powersgd:2 (hook and tetrad) and tetrad --sched fusion:25MiB, wfbp "
                             "and mgwfbp")
    parser.add_argument("--test-samples", type=int, default=2000)
    parser.add_argument("--target", type=float, default=0.85)
    parser.add_argument("--rate", default="200mbit", help="tbf rate of every link (netlab -r)")
    parser.add_argument("--lab", type=int, default=7, help="netlab id (-k)")
    parser.add_argument("--only", default="",
                        help="comma-separated words: run the configurations whose name holds one "
                             "(plain DDP and torch's fp16 hook always run, as baselines)")
    parser.add_argument("--keep", default="", help="keep logs and run folders in this folder")
    parser.add_argument("--list", action="store_true",
                        help="print the configurations that would run (after --only, --all) "
                             "and their arguments, and exit")
    args = parser.parse_args()
    if args.rounds < 1 or args.iters < 1 or args.eval_every < 1:
        sys.exit("ddp_lab: --rounds, --iters and --eval-every want positive numbers")
    configs = select(args)
    if args.list:
        for name, kind, extra in configs:
            print(f"{name}\t{'examples/ddp_mnist.py' if kind == 'ddp' else 'tetrad train'} "
                  f"{' '.join(extra)}")
        return
    check = netlab(args, "check")
    if check.returncode != 0:
        print(f"ddp_lab: skipped: {(check.stdout + check.stderr).strip()}")
        sys.exit(SKIP)
    for path in (os.path.join(ROOT, "build", "tetrad"), os.path.join(ROOT, "build", "python")):
        if not os.path.exists(path):
            fail(f"{path} is missing (build tetrad and its Python module first)")
    os.environ.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    work = args.keep or tempfile.mkdtemp(prefix="ddp_lab.")
    os.makedirs(work, exist_ok=True)
    up = netlab(args, "-n", "2", "-r", args.rate, "up")
    if up.returncode != 0:
        fail(f"netlab up failed: {(up.stdout + up.stderr).strip()}")
    results = {name: [] for name, _, _ in configs}
    try:
        port = 29600
        for r in range(args.rounds):
            for name, kind, extra in configs:
                slug = f"r{r + 1}-" + "".join(ch if ch.isalnum() else "_" for ch in name)
                port += 1
                result = (run_ddp(args, extra, port, os.path.join(work, slug + ".log"))
                          if kind == "ddp" else run_tetrad(args, extra, os.path.join(work, slug)))
                results[name].append(result)
                print(f"round {r + 1}: {name}: {result['samples_per_s']:.1f} samples/s, "
                      f"time to {args.target}: {result['time_to_target']}, "
                      f"accuracy {result['test_accuracy']}", flush=True)
    finally:
        netlab(args, "down")
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    report(args, results, {name: kind for name, kind, _ in configs})


def report(args, results, kinds):
    speed = {n: statistics.median(x["samples_per_s"] for x in runs) for n, runs in results.items()}
    ttt = {n: median_or_none(x["time_to_target"] for x in runs) for n, runs in results.items()}
    plain = speed["DDP (plain)"]
    fp16 = speed.get("DDP + torch fp16 hook")
    print(f"\ncnn, Fashion-MNIST, 2 hosts at {args.rate} (netlab), 1 rank x 1 thread per host, "
          f"batch 64 per rank, {args.iters} iterations, evaluation every {args.eval_every} on "
          f"{args.test_samples} test images; median of {args.rounds} alternating rounds (min-max)\n")
    print(f"| configuration | samples/s | × DDP | × DDP fp16 hook | time to {args.target} (s) "
          f"| iterations to {args.target} | bytes/iter (rank 0) | final accuracy |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, runs in results.items():
        speeds = [x["samples_per_s"] for x in runs]
        times = [x["time_to_target"] for x in runs if x["time_to_target"] is not None]
        iters = median_or_none(x["iterations_to_target"] for x in runs)
        time_text = "not reached"
        if times:
            time_text = f"{ttt[name]:.1f} ({min(times):.1f}–{max(times):.1f})"
            if len(times) < len(runs):
                time_text += f", {len(times)}/{len(runs)} reached"
        print(f"| {name} | {speed[name]:.1f} ({min(speeds):.1f}–{max(speeds):.1f}) "
              f"| {speed[name] / plain:.2f} | {'—' if fp16 is None else f'{speed[name] / fp16:.2f}'} "
              f"| {time_text} | {'—' if iters is None else f'{iters:.0f}'} "
              f"| {statistics.median(x['bytes_per_iteration'] for x in runs):,.0f} "
              f"| {statistics.median(x['test_accuracy'] for x in runs):.3f} |")
    # The three comparisons, where their configurations ran.
    own = [n for n in ("DDP (plain)", "DDP + torch fp16 hook") if n in ttt and ttt[n] is not None]
    tetrads = [n for n in results if kinds[n] == "tetrad" and ttt[n] is not None]
    print()
    for sched in ("tetrad none", "tetrad wfbp", "tetrad fusion:25MiB"):
        if sched in speed:
            print(f"{sched}: {speed[sched] / plain:.2f}x plain DDP's samples/s")
    if own and tetrads:
        ddp_best = min(own, key=lambda n: ttt[n])
        best = min(tetrads, key=lambda n: ttt[n])
        print(f"time to {args.target}: tetrad's best ({best}) {ttt[best]:.1f} s against DDP's "
              f"best torch configuration ({ddp_best}) {ttt[ddp_best]:.1f} s: "
              f"{ttt[ddp_best] / ttt[best]:.2f}x")
    averaging(args, ttt)
    topk_hook = "DDP + tetrad topk:0.01,ef hook"
    if fp16 and topk_hook in speed:
        line = f"{topk_hook}: {speed[topk_hook] / fp16:.2f}x torch's fp16 hook in samples/s"
        if ttt.get(topk_hook) and ttt.get("DDP + torch fp16 hook"):
            line += f", {ttt['DDP + torch fp16 hook'] / ttt[topk_hook]:.2f}x in time to target"
        print(line)



def averaging(args, ttt):
    """Time to target of the averaging and gossip configurations against plain DDP and
    torch's post-local SGD, where both ran and reached it."""
    pairs = [("torch post-local", "DDP (plain)"), ("tetrad post-local", "torch post-local"),
             ("tetrad post-local topk", "torch post-local"), ("dpsgd ring", "DDP (plain)")]
    for name, baseline in pairs:
        if ttt.get(name) and ttt.get(baseline):
            print(f"time to {args.target}: {name} ({POST_LOCAL if 'post' in name else 'ring'}) "
                  f"{ttt[name]:.1f} s against {baseline} {ttt[baseline]:.1f} s: "
                  f"{ttt[baseline] / ttt[name]:.2f}x")


if __name__ == "__main__":
    main()
