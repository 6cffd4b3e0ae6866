#!/bin/sh
# usage: check_codec_cost.sh TETRAD OUT_DIR FIXTURES_DIR
# Codec time on the simulated clock (train/loop/codec_charge.h), timing-only:
#  1. a fixed codec profile (FIXTURES_DIR/codec_fixed.json) charges exactly
#     per_call + n·per_element per encode and p such decodes per gather
#     call, per bucket and iteration (one fused bucket of n = the model's
#     parameters; topk:0.01,ef adds the "ef" row to the encode; PowerSGD
#     scales by its rank and decodes once), as codec_time_per_rank, and the
#     same seconds more of train time than --codec-cost none;
#  2. --codec-cost none reproduces the times of a build from before codec
#     charging (FIXTURES_DIR/codec_none_times.txt, recorded with the same
#     commands: train_time and per-rank communication time as text).
tetrad=$1
out=$2
fixtures=$3
fail() {
  echo "check_codec_cost: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common="--quiet --timing-only --model mlp --workers 4 --batch-size 32 --max-iters 5
  --compute fixed:5ms --cluster sim:1Gbps,50us --arch allreduce:ring --on-nonfinite off
  --bucket-size 1000000000"

run() { # NAME COMPRESS CODEC
  "$tetrad" train $common --compress "$2" --codec-cost "$3" --out "$out/$1" > "$out/$1.log" 2>&1 ||
    fail "$1: tetrad train failed: $(tail -n 3 "$out/$1.log")"
}
run topk_fixed topk:0.01,ef "profile:$fixtures/codec_fixed.json"
run topk_none topk:0.01,ef none
run psgd_fixed powersgd:2 "profile:$fixtures/codec_fixed.json"
run psgd_none powersgd:2 none

/usr/bin/python3 - "$out" <<'PY' || fail "charges differ from the profile (above)"
import json, sys
out = sys.argv[1]
def summary(name):
    return json.load(open(f"{out}/{name}/summary.json"))
ok = True
# (encode per call, per element) and (decode per call, per element), seconds.
cases = {"topk": ((10e-6, (2 + 4) * 1e-9), (5e-6, 1e-9), 4),
         "psgd": ((20e-6, 2 * 3e-9), (0.0, 2 * 0.5e-9), 1)}
for name, ((ec, ee), (dc, de), decodes) in cases.items():
    s, base = summary(f"{name}_fixed"), summary(f"{name}_none")
    n, iters = s["parameters"], s["iterations"]
    want = iters * (ec + n * ee + decodes * (dc + n * de))
    for r, got in enumerate(s["codec_time_per_rank"]):
        if abs(got - want) > 1e-12 * max(1.0, want):
            print(f"{name}: rank {r} charged {got!r} s, expected {want!r} s"); ok = False
    if any(t != 0 for t in base["codec_time_per_rank"]):
        print(f"{name}: --codec-cost none charged {base['codec_time_per_rank']}"); ok = False
    # The end-of-run totals gather, inside the engine time, carries codec time
    # only when it is charged: 8 bytes more per rank and step (< 1 us here).
    extra = s["train_time"] - base["train_time"]
    if abs(extra - want) > 1e-6:
        print(f"{name}: train time grew by {extra!r} s, the charge is {want!r} s"); ok = False
    if abs(s["codec_time"] - want / iters) > 1e-12:
        print(f"{name}: codec_time {s['codec_time']!r} per iteration, expected {want / iters!r}")
        ok = False
    print(f"{name}: {want:.6g} s charged per rank over {iters} iterations of {n} parameters")
sys.exit(0 if ok else 1)
PY

# 2. --codec-cost none against the recorded times.
: > "$out/none_times.txt"
for name in topk_none psgd_none; do
  tr -d ' \n' < "$out/$name/summary.json" | grep -o '"train_time":[^,]*' >> "$out/none_times.txt"
  echo >> "$out/none_times.txt"
  tr -d ' \n' < "$out/$name/summary.json" | grep -o '"comm_time_per_rank":\[[^]]*\]' \
    >> "$out/none_times.txt"
  echo >> "$out/none_times.txt"
done
diff "$fixtures/codec_none_times.txt" "$out/none_times.txt" ||
  fail "--codec-cost none does not reproduce the recorded times"
echo "check_codec_cost: PASS"
