#!/bin/sh
# usage: check_timing_only.sh TETRAD OUT_DIR CLUSTER
# Parity of timing-only simulation with the real loop (the same worker loop
# on a LibTorch replica or on a nominal one, train/compute/worker_compute.h): for
# every method of configs/survey.toml, every schedule (wfbp, fusion, ddp, mgwfbp,
# priority) and the gossip variants CHOCO and AD-PSGD, a real run (LibTorch,
# payloads) and a --timing-only run (no model, payload-free) of 8 workers on CLUSTER
# (a star or a two-level cluster), fixed compute, must give the same
# simulated times and traffic: every metrics line's sim_time, bytes_sent,
# bytes_received, compute_time and comm_time, the summary's train_time and
# its per-rank bytes, compute and communication times are identical as text
# (the same doubles: timing-only also sends the real run's evaluation
# messages, which the meter brackets out). 256 samples make an epoch of 4 iterations, so local:3
# averages and post-local:1ep:2 switches within the run's 6. Both runs keep
# the default --on-nonfinite stop: timing-only models the real run's
# per-iteration agreement. The timing-only files mark themselves: loss and
# accuracy null, and "timing_only": true in summary.json.
tetrad=$1
out=$2
cluster=$3
fail() {
  echo "check_timing_only: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common="--quiet --model mlp --data synthetic --train-samples 256 --test-samples 64 --workers 8
  --batch-size 8 --epochs 2 --max-iters 6 --log-every 1 --compute fixed:5ms --cluster $cluster"

# The timing fields of every train line, one line each.
timing_fields() {
  grep '"kind":"train"' "$1/metrics.jsonl" |
    sed -E 's/.*("iteration":[0-9]+).*("sim_time":[^,]*).*("bytes_sent":[^,]*).*("bytes_received":[^,]*).*("compute_time":[^,]*).*("comm_time":[^,}]*).*/\1 \2 \3 \4 \5 \6/'
}
train_time() {
  grep '"train_time"' "$1/summary.json"
}
per_rank() {
  tr -d ' \n' < "$1/summary.json" | grep -o "\"$2\":\[[^]]*\]"
}
n=0
while IFS='|' read -r label flags; do
  [ -n "$label" ] || continue
  n=$((n + 1))
  real="$out/real-$label"
  timing="$out/timing-$label"
  # shellcheck disable=SC2086
  "$tetrad" train $common $flags --out "$real" > "$real.log" 2>&1 ||
    { cat "$real.log"; fail "$label: the real run failed"; }
  # shellcheck disable=SC2086
  "$tetrad" train $common $flags --timing-only --out "$timing" > "$timing.log" 2>&1 ||
    { cat "$timing.log"; fail "$label: the timing-only run failed"; }
  [ "$(timing_fields "$real" | wc -l)" -eq 6 ] || fail "$label: not 6 train lines in $real"
  timing_fields "$real" > "$real.fields"
  timing_fields "$timing" > "$timing.fields"
  diff "$real.fields" "$timing.fields" ||
    fail "$label: metrics differ between the real and the timing-only run"
  [ -n "$(train_time "$real")" ] || fail "$label: no train_time in $real/summary.json"
  for field in bytes_sent_per_rank bytes_received_per_rank compute_time_per_rank \
      comm_time_per_rank; do
    [ -n "$(per_rank "$real" $field)" ] || fail "$label: no $field in $real/summary.json"
  done
  for run in "$real" "$timing"; do
    { train_time "$run" | tr -d ' ,'
      for field in bytes_sent_per_rank bytes_received_per_rank compute_time_per_rank \
          comm_time_per_rank; do
        per_rank "$run" $field
      done
    } > "$run.summary"
  done
  diff "$real.summary" "$timing.summary" ||
    fail "$label: summary.json's times or bytes differ between the real and the timing-only run"
  grep -q '"timing_only": true' "$timing/summary.json" || fail "$label: summary not marked"
  grep -q '"final_test_accuracy": null' "$timing/summary.json" || fail "$label: accuracy not null"
  if grep '"kind":"train"' "$timing/metrics.jsonl" | grep -v '"loss":null,"accuracy":null'; then
    fail "$label: a timing-only line has a loss or an accuracy"
  fi
  echo "check_timing_only: $label: $(train_time "$timing" | tr -d ' ,')"
done <<'METHODS'
bsp|--arch allreduce:ring
bsp-rabenseifner|--arch allreduce:rabenseifner
bsp-rd|--arch allreduce:rd
fp16|--compress fp16
onebit|--compress onebit
signsgd|--compress sign
ef-signsgd|--compress efsign
terngrad|--compress terngrad
qsgd16|--compress qsgd:16
natural|--compress natural
topk1pct-ef|--compress topk:0.01,ef
randomk1pct-ef|--compress randomk:0.01,ef
dgc0.1pct|--compress dgc:0.001 --momentum 0
gtopk1pct|--compress gtopk:0.01
powersgd2|--compress powersgd:2
ps-bsp|--arch ps:2
ps-ssp4|--sync ssp:4 --arch ps:2
ps-asp|--sync asp --arch ps:2
local3|--sync local:3
post-local|--sync post-local:1ep:2
dpsgd-ring|--arch gossip:ring
choco-ring|--arch gossip:ring --gossip choco:0.5 --compress topk:0.1
adpsgd-ring|--sync asp --arch gossip:ring
wfbp|--sched wfbp
mgwfbp|--sched mgwfbp
fusion|--sched fusion:64KiB
ddp|--sched ddp:64KiB:16KiB
priority|--sched priority
topk1pct-ef-wfbp|--compress topk:0.01,ef --sched wfbp
METHODS
[ "$n" -eq 29 ] || fail "ran $n methods, expected 29"
echo "check_timing_only: PASS ($n methods on $cluster)"
