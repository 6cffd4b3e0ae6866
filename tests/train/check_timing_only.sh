#!/bin/sh
# usage: check_timing_only.sh TETRAD OUT_DIR
# For none, fp16 and topk:0.01 on a star (4 workers, fixed compute) a real
# run (LibTorch, payloads) and a --timing-only run (no model, payload-free)
# must give the same simulated times and traffic: every metrics line's
# sim_time, bytes_sent, bytes_received, compute_time and comm_time, the
# summary's train_time and its per-rank bytes, compute and communication
# times are identical as text (the same doubles). The
# timing-only files mark themselves: loss and accuracy null, and
# "timing_only": true in summary.json.
tetrad=$1
out=$2
fail() {
  echo "check_timing_only: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
# The real run's non-finite guard agrees once per iteration (an all-gather of one float
# per worker); timing-only runs do not model it, so both runs leave it off.
set -- --quiet --on-nonfinite off --model cnn --data synthetic --train-samples 1024 --test-samples 64 --workers 4 \
  --batch-size 8 --max-iters 6 --log-every 1 --compute fixed:20ms --cluster sim:10Gbps,25us

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

for compress in none fp16 topk:0.01; do
  real="$out/real-$compress"
  timing="$out/timing-$compress"
  "$tetrad" train "$@" --compress "$compress" --out "$real" > "$out/real-$compress.log" 2>&1 ||
    { cat "$out/real-$compress.log"; fail "$compress: the real run failed"; }
  "$tetrad" train "$@" --compress "$compress" --timing-only --out "$timing" \
    > "$out/timing-$compress.log" 2>&1 ||
    { cat "$out/timing-$compress.log"; fail "$compress: the timing-only run failed"; }
  [ "$(timing_fields "$real" | wc -l)" -eq 6 ] || fail "$compress: not 6 train lines in $real"
  timing_fields "$real" > "$out/real-$compress.fields"
  timing_fields "$timing" > "$out/timing-$compress.fields"
  diff "$out/real-$compress.fields" "$out/timing-$compress.fields" ||
    fail "$compress: metrics differ between the real and the timing-only run"
  [ -n "$(train_time "$real")" ] || fail "$compress: no train_time in $real/summary.json"
  [ "$(train_time "$real")" = "$(train_time "$timing")" ] ||
    fail "$compress: train_time differs: $(train_time "$real") vs $(train_time "$timing")"
  for field in bytes_sent_per_rank bytes_received_per_rank compute_time_per_rank \
      comm_time_per_rank; do
    [ -n "$(per_rank "$real" $field)" ] || fail "$compress: no $field in $real/summary.json"
    [ "$(per_rank "$real" $field)" = "$(per_rank "$timing" $field)" ] ||
      fail "$compress: $field differs: $(per_rank "$real" $field) vs $(per_rank "$timing" $field)"
  done
  grep -q '"timing_only": true' "$timing/summary.json" || fail "$compress: summary not marked"
  grep -q '"final_test_accuracy": null' "$timing/summary.json" || fail "$compress: accuracy not null"
  if grep '"kind":"train"' "$timing/metrics.jsonl" | grep -v '"loss":null,"accuracy":null'; then
    fail "$compress: a timing-only line has a loss or an accuracy"
  fi
  echo "check_timing_only: $compress: $(train_time "$timing" | tr -d ' ,')"
done
echo "check_timing_only: PASS"
