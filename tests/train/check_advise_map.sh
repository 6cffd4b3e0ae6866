#!/bin/sh
# usage: check_advise_map.sh TETRAD OUT_DIR TOOLS_DIR
# `tetrad advise --results DIR --map` (experiment/method_map.h) on a tiny
# sweep of three trained runs (BSP, Top-k+EF, ASP on a parameter server):
# map.csv has one row per method and cell of a 3 x 2 grid; the winner of
# every cell is the method with the smallest time to target there; the
# synchronous methods are retimed, ASP comes from the cost model; a
# retimed time equals `tetrad retime` onto that cell's network; the PNG and
# SVG pictures exist and are not trivial; the advisor's agreement is counted
# over the 6 cells. Then the refusals: min > max, no
# steps, no --results: one line, exit status 2.
tetrad=$1
out=$2
tools=$3
fail() {
  echo "check_advise_map: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out/sweep"
common="--quiet --model mlp --data synthetic --train-samples 1024 --test-samples 256 --workers 4
  --batch-size 16 --epochs 2 --eval-every 4 --log-every 4 --compute flops:50
  --target-accuracy 0.5 --cluster sim:1Gbps,50us"
for method in "bsp|" "topk|--compress topk:0.05,ef" "asp|--sync asp --arch ps:1"; do
  label=${method%%|*}
  # shellcheck disable=SC2086
  "$tetrad" train $common ${method#*|} --out "$out/sweep/$label" > /dev/null ||
    fail "$label: training failed"
done
"$tetrad" advise --results "$out/sweep" --map --map-bandwidth 100Mbps:10Gbps:3 \
  --map-latency 1us:1ms:2 > "$out/map.log" || { cat "$out/map.log"; fail "advise --map failed"; }
cat "$out/map.log"
# The advisor's agreement over the 6 cells (BSP is the sweep's baseline).
grep -Eq "^# advisor .* agrees in [0-6] of 6 cells" "$out/map.log" ||
  fail "no agreement count over the 6 cells"
/usr/bin/python3 - "$out/sweep/map.csv" << 'PY' || fail "map.csv is not what it should be"
import csv, math, sys
rows = list(csv.DictReader(open(sys.argv[1])))
cells = {}
for r in rows:
    cells.setdefault(r["cluster"], []).append(r)
assert len(cells) == 6, f"{len(cells)} cells, expected 6"
for cluster, entries in cells.items():
    assert len(entries) == 3, f"{cluster}: {len(entries)} methods, expected 3"
    times = {e["method"]: float(e["time_to_target"]) if e["time_to_target"] else math.inf
             for e in entries}
    best = min(times, key=times.get)
    winners = [e["method"] for e in entries if e["winner"] == "1"]
    assert winners == [best], f"{cluster}: winner {winners}, fastest {best} ({times})"
    for e in entries:
        want = "cost model" if e["method"].startswith("asp") else "retimed"
        assert e["source"] == want, f"{cluster}: {e['method']} from {e['source']}"
print("map.csv: 6 cells, winners are the minima")
PY
# A retimed cell equals `tetrad retime` onto that network.
cell=$(/usr/bin/python3 -c "
import csv, sys
for r in csv.DictReader(open('$out/sweep/map.csv')):
    if r['method'].startswith('bsp allreduce:ring topk'):
        print(r['cluster'] + '|' + r['time_to_target']); break")
retimed=$("$tetrad" retime "$out/sweep/topk" --cluster "${cell%%|*}" --json |
  tr -d ' \n' | grep -o '"time_to_target":[^,]*' | head -1 | cut -d: -f2)
/usr/bin/python3 -c "import sys; a, b = float('${cell#*|}'), float('$retimed');
sys.exit(0 if abs(a - b) <= 1e-8 * b else 1)" ||
  fail "map's topk time ${cell#*|} vs tetrad retime $retimed on ${cell%%|*}"
for image in map_winner.png map_time.png map_winner.svg map_time.svg; do
  [ "$(wc -c < "$out/sweep/$image")" -gt 4000 ] || fail "$image is missing or trivial"
done
head -c 4 "$out/sweep/map_winner.png" | grep -q PNG || fail "map_winner.png is not a PNG"
grep -q "<svg" "$out/sweep/map_time.svg" || fail "map_time.svg is not an SVG"

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
echo "check_advise_map: PASS"
