#!/usr/bin/env python3
"""Print the markdown tables of docs/survey.md from one sweep folder.

Usage:

    python3 scripts/survey_tables.py runs/survey        # MLP, 8 workers, 3 seeds
    python3 scripts/survey_tables.py runs/survey-cnn    # cnn, 8 workers, 3 seeds
    python3 scripts/survey_tables.py runs/survey-32     # MLP, 32 workers, 1 seed
    python3 scripts/survey_tables.py runs/survey --details   # also map times, multipliers

Reads the sweep's results.csv (one row per run and seed, written by `tetrad run`),
tuning/tuning.json and tuning/results.csv (the learning-rate grids) and map.csv (the
bandwidth x latency maps), and prints, in survey.md's layout:

- one results table per cluster (method | lr | final accuracy | time to 85% |
  speed-up vs fp32 | vs fp16 | time/iter | iterations to target | bytes/worker/iter |
  comm share), aggregated over seeds as `tetrad report` aggregates them: means of the
  seeds that reached the target, sample standard deviations; a method counts as reaching
  the target only if every seed does ("not reached (k/n)": k of n seeds reached it);
  speed-ups are the baseline's mean time to target over the method's; rows marked ¹ were
  retimed (trained on another cluster, replayed timing-only on this one);
- the learning-rate tuning table (grid, metric of each rate, pick);
- the winner map (fastest method to the target per cell).

With --details it also prints each map cell's fastest methods and each method's
iterations to target over the baseline's (the measured iteration multiplier).

Python 3 standard library only.
"""

import csv
import json
import math
import os
import sys
from collections import OrderedDict


def mean(values):
    return sum(values) / len(values) if values else math.nan


def sample_std(values):
    if len(values) < 2:
        return math.nan
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def number(text):
    return float(text) if text not in ("", None) else math.nan


def canonical(value):
    """0.1 -> '0.1', 0.05 -> '0.05', 1e-4 -> '0.0001'."""
    text = f"{value:.10f}".rstrip("0").rstrip(".")
    return text or "0"


def fmt_time(seconds):
    """survey.md's convention: '4.34 s' from 1 s up, '974 ms' below."""
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1e3:.0f} ms"


def fmt_time_std(seconds):
    """A standard deviation, in the unit rule of fmt_time ('± 0 ms' for none)."""
    return fmt_time(seconds)


def fmt_bytes(count):
    if count >= 1024 * 1024:
        return f"{count / 1024 / 1024:.2f} MiB"
    if count >= 1024:
        return f"{count / 1024:.1f} KiB"
    return f"{count:.0f} B"


def ratio(base, value):
    if math.isnan(base) or math.isnan(value) or value <= 0:
        return "-"
    return f"{base / value:.2f}×"


class Row:
    def __init__(self, runs):
        first = runs[0]
        self.method = first["method"]
        self.sync, self.arch = first["sync"], first["arch"]
        self.compress, self.sched = first["compress"], first["sched"]
        self.lr = number(first["lr"])
        self.tuned = first["lr_tuned_from"] != ""
        self.seeds = len(runs)
        self.retimed = any(r["retimed_from"] for r in runs)
        reached = [r for r in runs if r["time_to_target"] != ""]
        self.reached = len(reached)
        self.all_reached = self.reached == self.seeds and self.seeds > 0
        self.acc = [number(r["final_accuracy"]) for r in runs]
        self.ttt = [number(r["time_to_target"]) for r in reached]
        self.itt = [number(r["iterations_to_target"]) for r in reached]
        per_iter = lambda key: [number(r[key]) / number(r["iterations"]) for r in runs]
        self.time_iter = mean(per_iter("train_time"))
        self.compute_iter = mean(per_iter("compute_time"))
        self.comm_iter = mean(per_iter("comm_time"))
        self.bytes = mean([number(r["bytes_per_worker_per_iter"]) for r in runs])
        self.layerwise = self.method.endswith("-layerwise")

    @property
    def time_to_target(self):
        return mean(self.ttt) if self.all_reached else math.nan

    @property
    def iters_to_target(self):
        return mean(self.itt) if self.all_reached else math.nan

    def is_baseline(self):
        return (self.sync == "bsp" and self.arch.startswith("allreduce") and
                self.compress == "none" and self.sched == "none" and not self.layerwise)

    def is_fp16_baseline(self):
        return (self.sync == "bsp" and self.arch.startswith("allreduce") and
                self.compress == "fp16" and self.sched == "none" and not self.layerwise)


def read_groups(folder):
    """({cluster: [Row, ...]}, {cluster: {method: [csv row, ...]}}), in results.csv's order."""
    runs = OrderedDict()
    with open(os.path.join(folder, "results.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if r["status"] != "ok":
                continue
            runs.setdefault(r["cluster"], OrderedDict()).setdefault(r["method"], []).append(r)
    return OrderedDict((c, [Row(v) for v in m.values()]) for c, m in runs.items()), runs


def results_table(rows):
    base = next((r for r in rows if r.is_baseline()), None)
    fp16 = next((r for r in rows if r.is_fp16_baseline()), None)
    base_t = base.time_to_target if base else math.nan
    fp16_t = fp16.time_to_target if fp16 else math.nan
    out = ["| method | lr | final accuracy | time to 85% | speed-up vs fp32 | vs fp16 | time/iter | "
           "iterations to target | bytes/worker/iter | comm share |",
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for r in rows:
        name = r.method + ("¹" if r.retimed else "")
        lr = canonical(r.lr) + (" (tuned)" if r.tuned else "")
        acc = f"{mean(r.acc):.4f}"
        if r.seeds > 1:
            acc += f" ± {sample_std(r.acc):.4f}"
        if r.all_reached:
            ttt = fmt_time(r.time_to_target)
            itt = f"{r.iters_to_target:.0f}"
            if r.seeds > 1:
                ttt += " ± " + fmt_time_std(sample_std(r.ttt))
                itt += f" ± {sample_std(r.itt):.0f}"
            vs32 = ratio(base_t, r.time_to_target)
            vs16 = "-" if r is base else ratio(fp16_t, r.time_to_target)
        else:
            ttt = f"not reached ({r.reached}/{r.seeds})"
            itt = vs32 = vs16 = "-"
        total = r.compute_iter + r.comm_iter
        share = f"{100 * r.comm_iter / total:.0f}%" if total > 0 else "-"
        out.append(f"| {name} | {lr} | {acc} | {ttt} | {vs32} | {vs16} | "
                   f"{r.time_iter * 1e3:.2f} ms | {itt} | {fmt_bytes(r.bytes)} | {share} |")
    return "\n".join(out)


def tuning_table(folder):
    path = os.path.join(folder, "tuning", "tuning.json")
    if not os.path.exists(path):
        return None
    spec = json.load(open(path))
    by_folder = {}
    with open(os.path.join(folder, "tuning", "results.csv"), newline="") as f:
        for r in csv.DictReader(f):
            by_folder[os.path.basename(r["folder"])] = r
    methods = spec["methods"]
    iters = {m["budget_iterations"] for m in methods}
    share = {m["budget"] for m in methods}
    head = (f"test accuracy after {'/'.join(str(i) for i in sorted(iters))} iterations "
            f"({'/'.join(f'{100 * s:.0f}%' for s in sorted(share))})")
    out = [f"| method | grid | {head} | pick |", "|---|---|---|--:|"]
    for m in methods:
        cells = []
        for lr, run in zip(m["grid"], m["runs"]):
            r = by_folder.get(run)
            if r is None:
                cells.append(f"{lr}: missing")
            elif r["status"] != "ok":
                cells.append(f"{lr}: {r['status']}")
            else:
                cells.append(f"{lr}: {number(r['final_accuracy']):.4f}")
        out.append(f"| {m['method']} | {', '.join(m['grid'])} | {'; '.join(cells)} | {m['pick']} |")
    return "\n".join(out)


def fmt_bandwidth(bps):
    gbps = bps / 1e9
    return f"{gbps:g} Gb/s"


def fmt_latency(seconds):
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.0f} ms"
    return f"{seconds * 1e6:.0f} µs"


def read_map(folder):
    path = os.path.join(folder, "map.csv")
    if not os.path.exists(path):
        return None
    cells = OrderedDict()
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            key = (float(r["latency_s"]), float(r["bandwidth_bps"]))
            cells.setdefault(key, []).append(r)
    return cells


def map_table(cells):
    bandwidths = sorted({b for _, b in cells})
    latencies = sorted({l for l, _ in cells})
    out = ["| latency \\ bandwidth | " + " | ".join(fmt_bandwidth(b) for b in bandwidths) + " |",
           "|---|" + "---|" * len(bandwidths)]
    for lat in latencies:
        names = []
        for bw in bandwidths:
            winners = [r["method"] for r in cells.get((lat, bw), []) if r["winner"] == "1"]
            names.append(", ".join(winners) or "-")
        out.append(f"| {fmt_latency(lat)} | " + " | ".join(names) + " |")
    return "\n".join(out)


def map_details(cells, top=5):
    out = []
    for (lat, bw), rows in sorted(cells.items(), key=lambda kv: (kv[0][0], kv[0][1])):
        timed = [r for r in rows if r["time_to_target"] != ""]
        timed.sort(key=lambda r: float(r["time_to_target"]))
        parts = []
        for r in timed[:top]:
            t = float(r["time_to_target"])
            std = f" ± {fmt_time_std(float(r['time_std']))}" if r["time_std"] != "" else ""
            parts.append(f"{r['method']} {t:.4g} s{std} ({r['source']})")
        base = next((r for r in rows if r["method"] == "bsp" and r["time_to_target"]), None)
        fp16 = next((r for r in rows if r["method"] == "fp16" and r["time_to_target"]), None)
        extra = []
        if base:
            extra.append(f"bsp {float(base['time_to_target']):.4g} s")
        if fp16:
            extra.append(f"fp16 {float(fp16['time_to_target']):.4g} s")
        out.append(f"- {fmt_bandwidth(bw)}, {fmt_latency(lat)}: " + "; ".join(parts) +
                   (f" [{', '.join(extra)}]" if extra else ""))
    return "\n".join(out)


def multipliers(rows):
    base = next((r for r in rows if r.is_baseline()), None)
    if base is None or not base.all_reached:
        return ""
    b = base.iters_to_target
    out = [f"baseline {base.method}: {b:.1f} iterations to target"]
    for r in rows:
        m = f"{r.iters_to_target / b:.2f}" if r.all_reached else "not reached"
        out.append(f"- {r.method}: {m}")
    return "\n".join(out)


def main(argv):
    args = [a for a in argv[1:] if not a.startswith("--")]
    details = "--details" in argv
    if len(args) != 1:
        sys.exit(__doc__)
    folder = args[0]
    groups, runs = read_groups(folder)
    for cluster, rows in groups.items():
        first = next(iter(runs[cluster].values()))[0]
        print(f"### {cluster} (`{first['cluster_spec']}`, {first['workers']} workers)\n")
        print(results_table(rows))
        print()
        if details:
            print(multipliers(rows))
            print()
    tuning = tuning_table(folder)
    if tuning:
        print("### Learning rates picked\n")
        print(tuning)
        print()
    cells = read_map(folder)
    if cells:
        print("### Map: fastest method to the target per cell\n")
        print(map_table(cells))
        print()
        if details:
            print(map_details(cells))
            print()


if __name__ == "__main__":
    main(sys.argv)
