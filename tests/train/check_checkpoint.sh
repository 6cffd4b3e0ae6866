#!/bin/sh
# usage: check_checkpoint.sh MODE TETRAD OUT_DIR [MPIRUN ARGS...]
# Checkpoint and resume from the command line (docs/reliability.md):
#   sim     SIGTERM sent to a running simulated run: exit status 3, summary
#           status "interrupted", a checkpoint; --resume with the same flags
#           then ends with the metrics of an uninterrupted run (apart from
#           wall times) and the same final test loss;
#   crash   the process ends while writing a checkpoint (test hook): the
#           previous checkpoint is used and the result is the same;
#   mpi     the same under mpirun with 2 ranks (the stop test hook instead
#           of a signal); times are wall times there, so losses, accuracies,
#           bytes and iterations are compared;
#   mpi-async  ASP on a dedicated parameter server under mpirun (2 workers +
#           1 server): stopped at a checkpoint cut and resumed, it ends with
#           status finished after the run's iterations (an asynchronous run
#           under MPI depends on timing, so results are not compared).
# The model is mlp, or the one TETRAD_CHECK_MODEL names (a model file too).
mode=$1
tetrad=$2
out=$3
shift 3
mpirun="$*"
fail() {
  echo "check_checkpoint ($mode): FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
# 8 iterations per epoch (1024 samples, 2 × 64), 50 epochs: long enough for
# a signal to arrive mid-run. Simulated runs charge a fixed compute time so
# that their simulated times are functions of the run alone.
set -- --model "${TETRAD_CHECK_MODEL:-mlp}" --data synthetic --train-samples 1024 --test-samples 128 --log-every 2 \
  --eval-every 10 --epochs 50 --checkpoint-every 8 --compress topk:0.1,ef --quiet
np=2
case $mode in
  mpi) ;;
  mpi-async)
    np=3
    set -- "$@" --sync asp --arch ps:1
    ;;
  *) set -- "$@" --compute fixed:5ms ;;
esac
# metrics.jsonl without the fields that are wall-clock measurements.
metrics() {
  if [ "$mode" != sim ] && [ "$mode" != crash ]; then
    sed -E 's/"(sim_time|wall_time|compute_time|comm_time|codec_time)":[^,}]*,?//g' "$1/metrics.jsonl"
  else
    sed -E 's/"wall_time":[^,}]*,?//g' "$1/metrics.jsonl"
  fi
}
field() {
  grep -o "\"$2\": *[^,]*" "$1/summary.json"
}
run() {  # run NAME [ENV=VALUE...] -- FLAGS: prints the exit status
  name=$1
  shift
  env_args=""
  while [ "$1" != "--" ]; do
    env_args="$env_args $1"
    shift
  done
  shift
  if [ "$mode" = mpi ] || [ "$mode" = mpi-async ]; then
    xs=""
    for e in $env_args; do xs="$xs -x $e"; done
    # shellcheck disable=SC2086
    env $env_args $mpirun -np $np $xs "$tetrad" train --cluster mpi "$@" > "$out/$name.log" 2>&1
  else
    # shellcheck disable=SC2086
    env $env_args "$tetrad" train --workers 2 "$@" > "$out/$name.log" 2>&1
  fi
  echo $?
}

# The signalled run must still be running when its sixth metrics line
# appears; the other modes stop at a fixed iteration (13, or the fifth
# checkpoint: 40), so a shorter run keeps the test cheap.
iters=96
[ "$mode" = sim ] && iters=240
status=$(run whole -- "$@" --max-iters $iters --out "$out/whole")
[ "$status" = 0 ] || { cat "$out/whole.log"; fail "the uninterrupted run failed"; }

case $mode in
  sim)
    # A longer run, stopped by SIGTERM once it has logged a few lines.
    "$tetrad" train --workers 2 "$@" --max-iters $iters --out "$out/stopped" \
      > "$out/stopped.log" 2>&1 &
    pid=$!
    tries=0
    while [ "$( (wc -l < "$out/stopped/metrics.jsonl") 2> /dev/null || echo 0)" -lt 6 ]; do
      tries=$((tries + 1))
      [ $tries -lt 600 ] || { kill -9 $pid; fail "the run logged nothing in 60 s"; }
      sleep 0.1
    done
    kill -TERM $pid
    wait $pid
    status=$?
    cat "$out/stopped.log"
    [ "$status" = 3 ] || fail "exit status $status after SIGTERM, 3 expected"
    grep -q "stopped by a signal after iteration" "$out/stopped.log" || fail "no stop message"
    grep -q '"status": "interrupted"' "$out/stopped/summary.json" ||
      fail "summary.json has no status interrupted"
    ;;
  crash)
    status=$(run stopped TETRAD_TEST_CHECKPOINT_CRASH=5 -- "$@" --max-iters $iters \
      --out "$out/stopped")
    [ "$status" = 86 ] || { cat "$out/stopped.log"; fail "exit status $status, 86 expected"; }
    ls "$out"/stopped/checkpoint/iter-*/*.tmp > /dev/null 2>&1 || fail "no half-written file"
    ;;
  mpi | mpi-async)
    status=$(run stopped TETRAD_TEST_STOP_AT=13 -- "$@" --max-iters $iters --out "$out/stopped")
    [ "$status" = 3 ] || { cat "$out/stopped.log"; fail "exit status $status, 3 expected"; }
    ;;
esac
ls -d "$out"/stopped/checkpoint/iter-* > /dev/null 2>&1 || fail "no checkpoint was written"
status=$(run resumed -- "$@" --max-iters $iters --resume "$out/stopped")
[ "$status" = 0 ] || { cat "$out/resumed.log"; fail "the resumed run failed"; }
grep -q "resuming .* from iteration" "$out/resumed.log" || fail "no resume message"
if [ "$mode" = mpi-async ]; then
  grep -q '"status": "finished"' "$out/stopped/summary.json" || fail "resumed run not finished"
  [ "$(field "$out/stopped" iterations)" = "$(field "$out/whole" iterations)" ] ||
    fail "iterations: $(field "$out/stopped" iterations), uninterrupted: $(field "$out/whole" iterations)"
  echo "check_checkpoint ($mode): PASS ($(field "$out/stopped" iterations))"
  exit 0
fi
metrics "$out/stopped" > "$out/stopped.metrics"
metrics "$out/whole" > "$out/whole.metrics"
# Equal line for line; simulated times ("..._time") to 1e-12 relative: the
# resumed run brings the simulated clock back to the checkpoint's instant by
# sleeping, and that sum rounds in the last bit, so later times (differences
# of clock readings) may differ there.
same_metrics() {
  awk -v tolerance=1e-12 '
    NR == FNR { want[FNR] = $0; lines = FNR; next }
    {
      if (!(FNR in want)) { print "extra line " FNR ": " $0; bad = 1; exit }
      n = split($0, got, /[,{}]/); m = split(want[FNR], ref, /[,{}]/)
      if (n != m) { print "line " FNR ": " $0 " vs " want[FNR]; bad = 1; exit }
      for (i = 1; i <= n; i++) {
        if (got[i] == ref[i]) continue
        split(got[i], g, ":"); split(ref[i], e, ":")
        d = g[2] - e[2]; if (d < 0) d = -d
        scale = e[2] < 0 ? -e[2] : e[2]; if (scale < 1) scale = 1
        if (g[1] ~ /_time"$/ && g[1] == e[1] && d <= tolerance * scale) continue
        print "line " FNR ": " got[i] " vs " ref[i]; bad = 1; exit
      }
    }
    END { if (!bad && FNR != lines) { print FNR " lines vs " lines; bad = 1 }; exit bad }
  ' "$1" "$2"
}
same_metrics "$out/whole.metrics" "$out/stopped.metrics" ||
  fail "metrics.jsonl differs from the uninterrupted run's"
for key in final_test_loss final_test_accuracy iterations; do
  [ "$(field "$out/stopped" $key)" = "$(field "$out/whole" $key)" ] ||
    fail "$key: $(field "$out/stopped" $key), uninterrupted: $(field "$out/whole" $key)"
done
if [ "$mode" = sim ] || [ "$mode" = crash ]; then
  awk -v a="$(field "$out/stopped" train_time | sed 's/.*: *//')" \
    -v b="$(field "$out/whole" train_time | sed 's/.*: *//')" \
    'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 1e-12 * b) }' ||
    fail "train_time: $(field "$out/stopped" train_time) vs $(field "$out/whole" train_time)"
fi
echo "check_checkpoint ($mode): PASS ($(field "$out/whole" final_test_loss))"
