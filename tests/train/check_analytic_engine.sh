#!/bin/sh
# usage: check_analytic_engine.sh TETRAD EXPECT_ERROR OUT_DIR
# The analytic engine against SimGrid's message-level CM02 in whole
# timing-only runs: for the survey's methods that it runs (all but the
# parameter server and AD-PSGD, whose timing-only runs carry payloads) and
# the overlapping schedules, 16 workers on a
# star and a two-level cluster, `--engine analytic` must give the SimGrid
# run's summary train_time within 1% and exactly its per-rank bytes sent
# and received and compute times (as text). Then its refusals: one line on
# stderr, exit status 2.
tetrad=$1
expect_error=$2
out=$3
fail() {
  echo "check_analytic_engine: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common="--quiet --timing-only --model mlp --data synthetic --train-samples 2048 --workers 16
  --batch-size 8 --epochs 2 --max-iters 12 --eval-every 6 --compute fixed:5ms --net-model cm02"
train_time() {
  tr -d ' \n' < "$1/summary.json" | grep -o '"train_time":[^,]*' | cut -d: -f2
}
per_rank() {
  tr -d ' \n' < "$1/summary.json" | grep -o "\"$2\":\[[^]]*\]"
}
n=0
while IFS='|' read -r label cluster flags; do
  [ -n "$label" ] || continue
  n=$((n + 1))
  for engine in simgrid analytic; do
    # shellcheck disable=SC2086
    "$tetrad" train $common --cluster "$cluster" $flags --engine $engine \
        --out "$out/$label-$engine" > "$out/$label-$engine.log" 2>&1 ||
      { cat "$out/$label-$engine.log"; fail "$label: the $engine run failed"; }
    for field in bytes_sent_per_rank bytes_received_per_rank compute_time_per_rank; do
      per_rank "$out/$label-$engine" $field
    done > "$out/$label-$engine.fields"
  done
  diff "$out/$label-simgrid.fields" "$out/$label-analytic.fields" ||
    fail "$label: per-rank bytes or compute times differ between the engines"
  grep -q '"analytic_engine": "analytic' "$out/$label-analytic/summary.json" ||
    fail "$label: the analytic run's summary does not name its engine"
  grep -q '"engine": "analytic"' "$out/$label-analytic/config.json" ||
    fail "$label: the analytic run's config does not name its engine"
  simgrid=$(train_time "$out/$label-simgrid")
  analytic=$(train_time "$out/$label-analytic")
  awk -v s="$simgrid" -v a="$analytic" 'BEGIN { r = a / s; exit !(r > 0.99 && r < 1.01) }' ||
    fail "$label: train_time $analytic (analytic) vs $simgrid (simgrid): not within 1%"
  echo "check_analytic_engine: $label: simgrid $simgrid s, analytic $analytic s"
done <<'METHODS'
bsp|sim:10Gbps,25us|--arch allreduce:ring
bsp-rabenseifner|sim:10Gbps,25us|--arch allreduce:rabenseifner
bsp-rd|sim:1Gbps,50us|--arch allreduce:rd
bsp-tree|sim:1Gbps,50us|--arch allreduce:tree
fp16|sim:1Gbps,50us|--compress fp16
signsgd|sim:1Gbps,50us|--compress sign
qsgd16|sim:1Gbps,50us|--compress qsgd:16
topk1pct-ef|sim:1Gbps,50us|--compress topk:0.01,ef
gtopk1pct|sim:1Gbps,50us|--compress gtopk:0.01
powersgd2|sim:1Gbps,50us|--compress powersgd:2
local3|sim:1Gbps,50us|--sync local:3
dpsgd-ring|sim:1Gbps,50us|--arch gossip:ring
two-level-ring|sim:4x4:100Gbps,2us:10Gbps,25us|--arch allreduce:ring
two-level-hierarchical|sim:4x4:100Gbps,2us:10Gbps,25us|--arch allreduce:hierarchical
wfbp|sim:1Gbps,50us|--sched wfbp
mgwfbp|sim:1Gbps,50us|--sched mgwfbp
priority|sim:1Gbps,50us|--sched priority
METHODS
[ "$n" -eq 17 ] || fail "ran $n methods, expected 17"

small="--quiet --timing-only --model mlp --data synthetic --train-samples 256
  --batch-size 8 --max-iters 2 --compute fixed:5ms --engine analytic --out $out/refused"
# shellcheck disable=SC2086
sh "$expect_error" "CM02" "$tetrad" train $small --workers 4 --cluster sim:10Gbps,25us \
  --net-model lv08 || fail "LV08 accepted"
# shellcheck disable=SC2086
sh "$expect_error" "timing-only" "$tetrad" train --quiet --model mlp --data synthetic \
  --train-samples 256 --workers 4 --max-iters 2 --engine analytic --net-model cm02 \
  --cluster sim:10Gbps,25us --out "$out/refused" || fail "a real run accepted"
# shellcheck disable=SC2086
sh "$expect_error" "parameter server" "$tetrad" train $small --workers 4 --net-model cm02 --arch ps:2 \
  --cluster sim:10Gbps,25us || fail "a parameter server accepted"
# shellcheck disable=SC2086
sh "$expect_error" "AD-PSGD" "$tetrad" train $small --workers 4 --net-model cm02 --sync asp \
  --arch gossip:ring --cluster sim:10Gbps,25us || fail "AD-PSGD accepted"
# shellcheck disable=SC2086
sh "$expect_error" "stars and two-level" "$tetrad" train $small --net-model cm02 \
  --cluster "sim:fattree:2;4,4;1,2;1,2:10Gbps,25us" || fail "a fat-tree accepted"
# shellcheck disable=SC2086
sh "$expect_error" "node uplink" "$tetrad" train $small --net-model cm02 \
  --cluster sim:4x4:100Gbps,2us:10Gbps,25us --arch allreduce:rabenseifner ||
  fail "rabenseifner on two levels accepted"
# shellcheck disable=SC2086
sh "$expect_error" "invalid --engine" "$tetrad" train --quiet --timing-only --model mlp \
  --data synthetic --train-samples 256 --workers 4 --max-iters 2 --net-model cm02 --engine ns3 \
  --cluster sim:10Gbps,25us --out "$out/refused" || fail "an unknown engine accepted"
# An empty --net-model is refused, not taken for the default.
# shellcheck disable=SC2086
sh "$expect_error" "empty network model" "$tetrad" train $small --workers 4 --net-model "" \
  --cluster sim:10Gbps,25us || fail "--net-model '' accepted"
# A simulation too large for this machine is refused at once with the estimate
# (not run until killed): 10^8 ranks need petabytes.
start=$(date +%s)
# shellcheck disable=SC2086
sh "$expect_error" "simulated ranks of [0-9]+ tensors need about [0-9.e+]+ GiB" "$tetrad" train $small \
  --workers 100000000 --net-model cm02 --cluster sim:10Gbps,25us || fail "10^8 ranks accepted"
[ $(($(date +%s) - start)) -lt 20 ] || fail "refusing 10^8 ranks took over 20 s"
# A large one reports its set-up on stderr (quarters of the ranks ready).
"$tetrad" train --timing-only --model mlp --data synthetic --batch-size 8 --max-iters 1 \
  --compute fixed:5ms --engine analytic --net-model cm02 --workers 2048 \
  --cluster sim:10Gbps,25us --out "$out/large" >"$out/large.txt" 2>&1 || fail "2048 ranks failed"
grep -q "setting up 2048 simulated ranks" "$out/large.txt" || fail "no set-up announcement"
grep -q "set-up: 2048 of 2048 ranks ready" "$out/large.txt" || fail "no set-up progress"
echo "check_analytic_engine: PASS ($n methods)"
