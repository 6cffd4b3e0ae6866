#!/bin/sh
# usage: check_checkpoint_async.sh TETRAD OUT_DIR
# Push-pull runs stopped and resumed from the command line, each run in its
# own process (docs/reliability.md): SSP on dedicated parameter servers, ASP
# on colocated ones with a pull compressor, and AD-PSGD on a ring. Each is
# run uninterrupted, then stopped by the stop test hook during local step 5
# (so at the checkpoint cut after step 8, --checkpoint-every 4) and resumed;
# metrics.jsonl and summary.json must equal the uninterrupted run's as text
# apart from wall-clock fields, the folder and passes_on_pool (the work of
# each process) — simulated times, bytes of
# every rank (servers included), staleness histograms and all. AD-PSGD's
# staleness statistics are left out: its step counter numbers the ticks
# that arrive at one simulated instant in the engine's internal order of
# simultaneous events, which a resumed simulation does not reproduce (the
# models do not depend on it).
tetrad=$1
out=$2
rm -rf "$out"
mkdir -p "$out"
fail() {
  echo "check_checkpoint_async: FAIL: $*"
  exit 1
}
strip() {  # FILE: without wall-clock fields, the run folder and this process's pool count
  sed -E 's/"wall_time":[^,}]*,?//g; /"(wall_time|folder|passes_on_pool)"/d' "$1"
}
strip_staleness() {  # FILE: also without staleness statistics
  strip "$1" | sed -E 's/,?"(mean|max)_staleness":[^,}]*//g; /"staleness_histogram"/,/}/d'
}
check() {  # NAME STRIP FLAGS...
  name=$1
  filter=$2
  shift 2
  dir="$out/$name"
  set -- --model mlp --data synthetic --train-samples 3072 --test-samples 64 --log-every 2 \
    --eval-every 6 --epochs 4 --max-iters 24 --checkpoint-every 4 --compute fixed:5ms --quiet "$@"
  "$tetrad" train "$@" --out "$dir/whole" > "$dir.whole.log" 2>&1 ||
    { cat "$dir.whole.log"; fail "$name: the uninterrupted run failed"; }
  TETRAD_TEST_STOP_AT=5 "$tetrad" train "$@" --out "$dir/stopped" > "$dir.stopped.log" 2>&1
  status=$?
  [ $status = 3 ] || { cat "$dir.stopped.log"; fail "$name: exit status $status, 3 expected"; }
  [ -f "$dir/stopped/checkpoint/iter-000008/rank-00000.ckpt" ] ||
    fail "$name: no checkpoint after local step 8"
  "$tetrad" train "$@" --resume "$dir/stopped" > "$dir.resumed.log" 2>&1 ||
    { cat "$dir.resumed.log"; fail "$name: the resumed run failed"; }
  grep -q "resuming .* from iteration 8" "$dir.resumed.log" || fail "$name: no resume message"
  for file in metrics.jsonl summary.json; do
    $filter "$dir/whole/$file" > "$dir.whole.$file"
    $filter "$dir/stopped/$file" > "$dir.stopped.$file"
    diff "$dir.whole.$file" "$dir.stopped.$file" > "$dir.$file.diff" ||
      { head -20 "$dir.$file.diff"; fail "$name: $file differs from the uninterrupted run's"; }
  done
  grep -q '"staleness_histogram"' "$dir/whole/summary.json" ||
    fail "$name: no staleness histogram in summary.json"
  note=""
  [ "$filter" = strip ] || note=" (staleness statistics not compared)"
  echo "check_checkpoint_async: $name resumes bit for bit$note"
}
check ssp-ps strip --workers 3 --sync ssp:1 --arch ps:2 --compress topk:0.1,ef
check asp-colocated strip --workers 3 --sync asp --arch ps:3:colocated --ps-pull-compress fp16
check adpsgd strip_staleness --workers 4 --sync asp --arch gossip:ring
echo "check_checkpoint_async: PASS"
