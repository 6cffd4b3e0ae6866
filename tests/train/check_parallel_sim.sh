#!/bin/sh
# usage: check_parallel_sim.sh TETRAD OUT_DIR
# Parallel simulation (train/compute/compute_pool.h): every method below runs once
# with --sim-threads 1 (passes inline, one at a time) and once with
# --sim-threads 3 (passes on a pool of three threads while the actors sleep
# through their charges). metrics.jsonl must be identical as text apart from
# wall times, and so must summary.json apart from its wall-clock lines: the
# same losses, accuracies, bytes and simulated times to the last bit. The
# methods cover the loops and the state ranks keep: BSP all-reduce with and
# without a compressor's state, the parameter server (dedicated and
# colocated shards), Local SGD over gossip, D-PSGD, ASP on the parameter
# server, AD-PSGD (whose passes stay inline), the overlapping schedules
# (priority's stay inline), and compute noise with a straggler (the noise
# stream must be drawn in order). summary.json's passes_on_pool shows that
# the pool was used (> 0 with 3 threads, 0 with one and where passes stay
# inline). Measured compute (timed on the passes' own threads) is checked
# last, on the values that do not depend on time.
tetrad=$1
out=$2
fail() {
  echo "check_parallel_sim: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common="--quiet --model mlp --data synthetic --train-samples 768 --test-samples 128 --workers 4
  --batch-size 16 --max-iters 10 --log-every 1 --eval-every 5 --cluster sim:1Gbps,50us
  --timeline off"

# Without the wall-clock fields.
strip() {
  sed -E 's/"wall_time":[^,}]*,?//' "$1"
}
summary() {
  grep -v '"wall_' "$1" | grep -v '"folder"' | grep -v '"sim_threads"' | grep -v '"passes_on_pool"'
}
pool_passes() {
  grep -o '"passes_on_pool": *[0-9]*' "$1/summary.json" | grep -o '[0-9]*$'
}

n=0
while IFS='|' read -r label flags; do
  [ -n "$label" ] || continue
  n=$((n + 1))
  compute="--compute flops:20"  # unless the method sets its own
  case "$flags" in *--compute\ *) compute="" ;; esac
  # The two runs side by side (the test holds both cores, and the compute
  # model is not the clock: every charge is modelled), then both checked.
  for threads in 1 3; do
    dir="$out/$label-t$threads"
    # shellcheck disable=SC2086
    { "$tetrad" train $common $compute $flags --sim-threads $threads --out "$dir" > "$dir.log" 2>&1
      echo $? > "$dir.status"; } &
  done
  wait
  for threads in 1 3; do
    dir="$out/$label-t$threads"
    [ "$(cat "$dir.status")" = 0 ] ||
      { cat "$dir.log"; fail "$label: the run with --sim-threads $threads failed"; }
  done
  serial="$out/$label-t1"
  parallel="$out/$label-t3"
  grep -q '"sim_threads": 3' "$parallel/config.json" ||
    fail "$label: config.json does not record 3 simulation threads"
  # The pool was used where it applies (AD-PSGD and priority stay inline)
  # and not with one thread.
  [ "$(pool_passes "$serial")" = 0 ] || fail "$label: passes on a pool with --sim-threads 1"
  case $label in
    adpsgd | priority)
      [ "$(pool_passes "$parallel")" = 0 ] || fail "$label: passes on the pool, expected inline" ;;
    *) [ "$(pool_passes "$parallel")" -gt 0 ] || fail "$label: no pass ran on the pool" ;;
  esac
  [ "$(grep -c '"kind":"train"' "$serial/metrics.jsonl")" -ge 10 ] ||
    fail "$label: fewer than 10 train lines in $serial/metrics.jsonl"
  strip "$serial/metrics.jsonl" > "$serial.metrics"
  strip "$parallel/metrics.jsonl" > "$parallel.metrics"
  diff "$serial.metrics" "$parallel.metrics" > "$out/$label.diff" ||
    { head -5 "$out/$label.diff"; fail "$label: metrics.jsonl differs between 1 and 3 threads"; }
  summary "$serial/summary.json" > "$serial.summary"
  summary "$parallel/summary.json" > "$parallel.summary"
  diff "$serial.summary" "$parallel.summary" ||
    fail "$label: summary.json differs between 1 and 3 threads"
done <<'METHODS'
bsp-none|
bsp-powersgd|--compress powersgd:2
bsp-topk-ef|--compress topk:0.01,ef
bsp-randomk-ef|--compress randomk:0.05,ef
ps2-qsgd|--arch ps:2 --compress qsgd:16
ps2-colocated|--arch ps:2:colocated --compress terngrad
local3-gossip|--sync local:3 --arch gossip:ring
dpsgd|--arch gossip:exp
asp-ps|--sync asp --arch ps:1
adpsgd|--sync asp --arch gossip:ring
wfbp|--sched wfbp --compress fp16
mgwfbp-topk|--sched mgwfbp --compress topk:0.05,ef
fusion-guard-off|--sched fusion:1MiB --on-nonfinite off
priority|--sched priority:1MiB
noise-straggler|--compute fixed:8ms --compute-noise 0.3 --straggler 2:1.5
flops-noise-skip|--compute flops:20 --compute-noise 0.2 --on-nonfinite skip
METHODS
[ "$n" -eq 16 ] || fail "ran $n methods, expected 16"

# --compute measured (the default): passes on the pool are charged their
# thread's CPU time, so simulated times differ from run to run, but a
# synchronous method's losses and accuracies do not depend on them: they
# must equal the inline run's (evaluations included, whose forward passes
# also run on the pool), and the passes must have run on the pool.
values() {
  grep -o '"\(kind\|iteration\|loss\|accuracy\)":[^,}]*' "$1"
}
for method in "bsp|" "local3|--sync local:3"; do
  label=measured-${method%%|*}
  flags=${method#*|}
  for threads in 1 3; do
    dir="$out/$label-t$threads"
    # shellcheck disable=SC2086
    "$tetrad" train $common --compute measured $flags --sim-threads $threads --out "$dir" \
      > "$dir.log" 2>&1 || { cat "$dir.log"; fail "$label: the run with $threads threads failed"; }
  done
  [ "$(pool_passes "$out/$label-t1")" = 0 ] || fail "$label: passes on a pool with one thread"
  [ "$(pool_passes "$out/$label-t3")" -gt 0 ] || fail "$label: no measured pass ran on the pool"
  # bsp: every job on the pool, the evaluations' forward passes included:
  # 4 ranks x (10 passes + 10 steps + 2 evaluations).
  if [ "$label" = measured-bsp ]; then
    [ "$(pool_passes "$out/$label-t3")" = 88 ] ||
      fail "$label: $(pool_passes "$out/$label-t3") jobs on the pool, expected 88"
  fi
  values "$out/$label-t1/metrics.jsonl" > "$out/$label-t1.values"
  values "$out/$label-t3/metrics.jsonl" > "$out/$label-t3.values"
  [ "$(grep -c '"loss"' "$out/$label-t1.values")" -ge 10 ] || fail "$label: too few metrics lines"
  diff "$out/$label-t1.values" "$out/$label-t3.values" > "$out/$label.diff" ||
    { head -5 "$out/$label.diff"; fail "$label: losses differ between inline and pool passes"; }
done
echo "check_parallel_sim: $n methods identical with 1 and 3 simulation threads;" \
  "measured passes on the pool give the inline losses (bsp, local:3)"
