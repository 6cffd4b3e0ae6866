#!/bin/sh
# usage: check_advise_map.sh TETRAD OUT_DIR TOOLS_DIR
# `tetrad advise --results DIR --map` (experiment/method_map.h) on a tiny
# sweep: on 4 workers BSP (two seeds), Top-k+EF and ASP on a parameter
# server; on 8 workers BSP and Top-k+EF. map.csv has one row per method and
# cell of a 3 x 2 grid per worker count; the winner of every cell is the
# method with the smallest time to target there; the synchronous methods are
# retimed, ASP comes from the cost model; BSP on 4 workers is the mean of its
# two seeds' retimed times; a retimed time equals `tetrad retime` onto that
# cell's network; the PNG and SVG pictures exist and are not trivial; the
# advisor's agreement is counted over the 12 cells; with --jobs 2 (the
# replays in child processes) map.csv is the same up to rounding; with
# the replays cached (map_replays.jsonl: a second map replays nothing, a
# changed run again); with --noise-ratio fit the fitted s is printed with an error no larger than at
# s = 1 and used for the agreement. Then the refusals: min >
# max, no steps, no --results, an unknown --net-model (refused once, not
# per method), --replay-with no executable: one line, exit status 2.
tetrad=$1
out=$2
tools=$3
fail() {
  echo "check_advise_map: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out/sweep"
common="--quiet --model mlp --data synthetic --train-samples 1024 --test-samples 256
  --batch-size 16 --epochs 2 --eval-every 4 --log-every 4 --compute flops:50
  --target-accuracy 0.5 --cluster sim:1Gbps,50us"
for method in "bsp|--workers 4" "bsp-seed2|--workers 4 --seed 2" \
  "topk|--workers 4 --compress topk:0.05,ef" "asp|--workers 4 --sync asp --arch ps:1" \
  "bsp8|--workers 8" "topk8|--workers 8 --compress topk:0.05,ef"; do
  label=${method%%|*}
  # shellcheck disable=SC2086
  "$tetrad" train $common ${method#*|} --out "$out/sweep/$label" > /dev/null ||
    fail "$label: training failed"
done
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 > "$out/map.log" || { cat "$out/map.log"; fail "advise --map failed"; }
cat "$out/map.log"
# The compressor measured on the runs' own gradients (summary.json), and used
# for the advisor's iteration multipliers instead of Gaussian vectors.
grep -q '"compression_error"' "$out/sweep/topk/summary.json" ||
  fail "topk: no compression_error in summary.json"
if grep -q '"compression_error"' "$out/sweep/bsp/summary.json"; then
  fail "bsp: a compression_error without a compressor"
fi
grep -Eq "^# compression error .* on the runs' gradients: topk[^ ]* 0\.[0-9]" "$out/map.log" ||
  fail "the map does not use the compression error recorded on the runs' gradients"
# The advisor's agreement over the 12 cells (BSP is the sweep's baseline).
grep -Eq "^# advisor .* agrees in [0-9]+ of 12 cells .*; [0-9]+ more within one evaluation step" "$out/map.log" ||
  fail "no agreement count over the 12 cells"
/usr/bin/python3 - "$out/sweep/map.csv" << 'PY' || fail "map.csv is not what it should be"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {}
for r in rows:
    cells.setdefault(r["cluster"], []).append(r)
assert len(cells) == 12, f"{len(cells)} cells, expected 12"
for cluster, entries in cells.items():
    workers = entries[0]["workers"]
    assert cluster.startswith(f"sim:{workers}x"), f"{cluster}: not of {workers} workers"
    want = 3 if workers == "4" else 2
    assert len(entries) == want, f"{cluster}: {len(entries)} methods, expected {want}"
    for e in entries:
        two = e["method"].startswith("bsp allreduce:auto none") and workers == "4"
        assert e["seeds"] == ("2" if two else "1"), f"{cluster}: {e['method']} seeds {e['seeds']}"
        assert (e["time_std"] != "") == two, f"{cluster}: {e['method']} time_std"
    times = {e["method"]: float(e["time_to_target"]) if e["time_to_target"] else math.inf
             for e in entries}
    best = min(times, key=times.get)
    winners = [e["method"] for e in entries if e["winner"] == "1"]
    assert winners == [best], f"{cluster}: winner {winners}, fastest {best} ({times})"
    for e in entries:
        want = "cost model" if e["method"].startswith("asp") else "retimed"
        assert e["source"] == want, f"{cluster}: {e['method']} from {e['source']}"
print("map.csv: 12 cells, winners are the minima")
PY
# A retimed cell equals `tetrad retime` onto that network.
cell=$(/usr/bin/python3 -c "
import csv, sys
for r in csv.DictReader(open('$out/sweep/map.csv')):
    if r['method'].startswith('bsp allreduce:auto topk'):
        print(r['cluster'] + '|' + r['time_to_target']); break")
retimed=$("$tetrad" retime "$out/sweep/topk" --cluster "${cell%%|*}" --json |
  tr -d ' \n' | grep -o '"time_to_target":[^,]*' | head -1 | cut -d: -f2)
/usr/bin/python3 -c "import sys; a, b = float('${cell#*|}'), float('$retimed');
sys.exit(0 if abs(a - b) <= 1e-8 * b else 1)" ||
  fail "map's topk time ${cell#*|} vs tetrad retime $retimed on ${cell%%|*}"
# The same map with its replays in child processes (retime --batch shards,
# two at a time): the same map.csv, up to rounding (SimGrid's clock is not
# reset between the simulations of one process: ~1e-16 relative).
cp "$out/sweep/map.csv" "$out/map-in-process.csv"
grep -q "^# 30 replays .*: 0 from .*map_replays.jsonl, 30 to run" "$out/map.log" ||
  fail "the first map did not replay its 30 runs and cells"
rm "$out/sweep/map_replays.jsonl"
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 --jobs 2 > "$out/map-jobs.log" ||
  { cat "$out/map-jobs.log"; fail "advise --map --jobs 2 failed"; }
grep -q "^# replays: 30 of 30" "$out/map-jobs.log" || { cat "$out/map-jobs.log"; fail "no progress"; }
/usr/bin/python3 - "$out/sweep/map.csv" "$out/map-in-process.csv" << 'PY' ||
import csv, math, sys
a, b = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert len(a) == len(b) and len(a) > 0, f"{len(a)} rows vs {len(b)}"
for x, y in zip(a, b):
    for key in x:
        if key == "time_std":  # a difference of equal times: rounding itself
            assert abs(float(x[key] or 0) - float(y[key] or 0)) <= 1e-12 * float(x["time_to_target"] or 1), (key, x, y)
            continue
        try:
            u, v = float(x[key]), float(y[key])
        except ValueError:
            assert x[key] == y[key], (key, x[key], y[key])
            continue
        assert u == v or abs(u - v) <= 1e-12 * max(abs(u), abs(v)), (key, u, v)
PY
  fail "map.csv with --jobs 2 differs from the one replayed in one process"
[ ! -e "$out/sweep/.map-replays" ] || fail "the replays' scratch folder was left behind"
# Drawn again: every replay from the cache (map_replays.jsonl), the same map.
cp "$out/sweep/map.csv" "$out/map-jobs.csv"
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 --jobs 2 > "$out/map-cached.log" ||
  { cat "$out/map-cached.log"; fail "advise --map from the cache failed"; }
grep -q "^# 30 replays .*: 30 from .*map_replays.jsonl, 0 to run" "$out/map-cached.log" ||
  { cat "$out/map-cached.log"; fail "the second map did not take its replays from the cache"; }
cmp "$out/sweep/map.csv" "$out/map-jobs.csv" || fail "the map from the cache differs"
# A changed run (its summary.json) is replayed again, the others not.
echo " " >> "$out/sweep/topk8/summary.json"
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 > "$out/map-changed.log" || fail "advise --map after a change failed"
grep -q "^# 30 replays .*: 24 from .*map_replays.jsonl, 6 to run" "$out/map-changed.log" ||
  { grep replays "$out/map-changed.log"; fail "a changed run was not replayed again"; }
# Replayed by another build (--replay-with a copy of the binary), on one
# cell of the grid: the cache is keyed to that binary, so its 5 replays run
# again (as its children, even at --jobs 1), and the cell's times are the
# grid map's.
cp "$tetrad" "$out/tetrad-copy"
cp "$out/sweep/map.csv" "$out/map-grid.csv"
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 1Gbps:1Gbps:1 \
  --map-latency 1us:1us:1 --replay-with "$out/tetrad-copy" > "$out/map-other.log" ||
  { cat "$out/map-other.log"; fail "advise --map --replay-with failed"; }
grep -q "^# 5 replays .*: 0 from .*map_replays.jsonl, 5 to run" "$out/map-other.log" ||
  { grep replays "$out/map-other.log"; fail "--replay-with did not key the cache to that binary"; }
/usr/bin/python3 - "$out/sweep/map.csv" "$out/map-grid.csv" << 'PY' ||
import csv, sys
one, grid = (list(csv.DictReader(open(f))) for f in sys.argv[1:])
assert len(one) == 5, f"{len(one)} rows, expected 5 (one cell per worker count)"
times = {(r["cluster"], r["method"]): r["time_to_target"] for r in grid}
for r in one:
    a, b = float(r["time_to_target"]), float(times[(r["cluster"], r["method"])])
    assert abs(a - b) <= 1e-12 * b, (r["cluster"], r["method"], a, b)
PY
  fail "the cell replayed by another build differs from the grid map's"
cp "$out/map-grid.csv" "$out/sweep/map.csv"
# The noise ratio fitted to the sweep's measured multipliers: named with its
# error, which is no larger than the default's, and used for the agreement.
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 --noise-ratio fit > "$out/map-fit.log" ||
  { cat "$out/map-fit.log"; fail "advise --map --noise-ratio fit failed"; }
grep -E "^# noise ratio s fitted" "$out/map-fit.log"
/usr/bin/python3 - "$out/map-fit.log" << 'PY' || fail "the fitted noise ratio is not what it should be"
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r"^# noise ratio s fitted to the measured iterations of (\d+) methods: s = ([0-9.e+-]+) "
              r"\(rms log error ([0-9.]+); at s = 1: ([0-9.]+)\)$", text, re.M)
assert m, "no fit line"
assert int(m[1]) >= 2, m[0]
assert float(m[3]) <= float(m[4]) + 1e-9, m[0]
assert re.search(r"^# advisor .*noise ratio [0-9.e+-]+, fitted\) .* agrees in \d+ of 12 cells", text, re.M)
assert re.search(r"^# advisor at noise ratio 143.4 \(the default\): agrees in \d+ of 12 cells; \d+ more ties$", text, re.M)
PY
# At the default s the fit is shown for comparison, with its agreement.
# Exact picks and crowded cells apart, and the two baselines (map_baselines.h).
grep -Eq "^# advisor exactly the fastest in [0-9]+ of 12 cells; [0-9]+ cells hold 2 or more methods" \
  "$out/map.log" || fail "the map does not count exact picks and crowded cells"
grep -Eq "^# baseline, cost model alone \(every multiplier 1\): agrees in [0-9]+ of 12 cells, exactly in [0-9]+$" \
  "$out/map.log" || fail "the map does not judge the cost-model-alone baseline"
grep -Eq "^# baseline, three rules .*: agrees in [0-9]+ of 12 cells, exactly in [0-9]+$" \
  "$out/map.log" || fail "the map does not judge the three-rule baseline"
grep -Eq "^# noise ratio s fitted .*; used only for comparison, s = 143.4$" "$out/map.log" ||
  fail "the default map does not show the fitted s for comparison"
grep -Eq "^# advisor at noise ratio [0-9.e+-]+ \(fitted to this sweep\): agrees in [0-9]+ of 12 cells; [0-9]+ more ties$" \
  "$out/map.log" || fail "the default map does not count the agreement at the fitted s"
for image in map_winner.png map_time.png map_winner.svg map_time.svg; do
  [ "$(wc -c < "$out/sweep/$image")" -gt 4000 ] || fail "$image is missing or trivial"
done
head -c 4 "$out/sweep/map_winner.png" | grep -q PNG || fail "map_winner.png is not a PNG"
grep -q "<svg" "$out/sweep/map_time.svg" || fail "map_time.svg is not an SVG"

# The compute axis (--map-compute): each run's compute time per iteration
# scaled by 0.1, 1 and 10 on one network, replayed in child processes (the
# compute travels in retime --batch's lines): R moves by the inverse factor,
# a slower device takes longer, and a scaled cell equals `tetrad retime
# --compute` with the scaled compute model (flops:50 at 0.1 is flops:500).
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 1Gbps:1Gbps:1 \
  --map-latency 1us:1us:1 --map-compute 0.1,1,10 --jobs 2 > "$out/map-compute.log" ||
  { cat "$out/map-compute.log"; fail "advise --map --map-compute failed"; }
grep -q "at compute x 0.1, 1, 10" "$out/map-compute.log" || fail "the compute axis is not named"
grep -q "^# 4 workers, compute ×0.1$" "$out/map-compute.log" || fail "the winner table has no compute panels"
fast=$(/usr/bin/python3 - "$out/sweep/map.csv" << 'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len({(r["workers"], r["compute_scale"]) for r in rows}) == 6, "not 2 worker counts x 3 scales"
r_of, t_of = {}, {}
for r in rows:
    r_of[(r["workers"], r["compute_scale"])] = float(r["r"])
    t_of[(r["workers"], r["compute_scale"], r["method"])] = float(r["time_to_target"] or "inf")
for w in ("4", "8"):
    assert abs(r_of[(w, "0.1")] - 10 * r_of[(w, "1")]) <= 1e-9 * r_of[(w, "0.1")], r_of
    assert abs(r_of[(w, "10")] - 0.1 * r_of[(w, "1")]) <= 1e-9 * r_of[(w, "1")], r_of
for (w, s, m), t in t_of.items():
    if s == "1" and m.startswith("bsp"):
        assert t_of[(w, "10", m)] > t > t_of[(w, "0.1", m)], (w, m, t_of)
print(t_of[("4", "0.1", "topk")] if ("4", "0.1", "topk") in t_of else
      [t for (w, s, m), t in t_of.items() if w == "4" and s == "0.1" and m.startswith("bsp allreduce:auto topk")][0])
PY
) || fail "the compute axis's map.csv is not what it should be"
retimed=$("$tetrad" retime "$out/sweep/topk" --cluster sim:4x1Gbps,1us --compute flops:500 --json |
  tr -d ' \n' | grep -o '"time_to_target":[^,]*' | head -1 | cut -d: -f2)
/usr/bin/python3 -c "import sys; a, b = float('$fast'), float('$retimed');
sys.exit(0 if abs(a - b) <= 1e-8 * b else 1)" ||
  fail "topk at compute x0.1: map $fast vs tetrad retime --compute flops:500 $retimed"
[ "$(wc -c < "$out/sweep/map_winner.png")" -gt 4000 ] || fail "the compute map's picture is trivial"

error() {  # REGEX ARGS...
  regex=$1
  shift
  sh "$tools/expect_error.sh" "$regex" "$tetrad" advise "$@" > "$out/error.log" 2>&1 ||
    { cat "$out/error.log"; fail "advise $*: not the one-line refusal '$regex'"; }
}
error "min is larger than max" --results "$out/sweep" --map --map-bandwidth 10Gbps:1Gbps:3
error "STEPS must be in" --results "$out/sweep" --map --map-latency 1us:1ms:0
error "give --results DIR" --map
error "use MIN:MAX:STEPS" --results "$out/sweep" --map --map-bandwidth 1Gbps
error "--jobs 0: need at least 1" --results "$out/sweep" --map --jobs 0
error "--map-compute '0,1': '0' is not a factor > 0" --results "$out/sweep" --map --map-compute 0,1
error "unknown network model 'lv09'" --results "$out/sweep" --map --net-model lv09
error "--replay-with '/nonexistent/tetrad': not an executable file" --results "$out/sweep" --map \
  --replay-with /nonexistent/tetrad
error "--noise-ratio fit fits s to a finished sweep" --model mlp --cluster sim:1Gbps,50us \
  --noise-ratio fit
echo "check_advise_map: PASS"
