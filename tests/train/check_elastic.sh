#!/bin/sh
# usage: check_elastic.sh TETRAD OUT_DIR MPIRUN ARGS...
# `tetrad elastic` (docs/reliability.md, "Elastic training") on 3 local
# ranks under mpirun:
#   1. SIGKILL rank 2 mid-training: the supervisor restarts the job on 2
#      workers from the newest checkpoint (an elastic resize), the run
#      finishes with a final test accuracy within 1 point of an
#      uninterrupted 3-rank run, and summary.json and elastic.jsonl report
#      the loss (iterations and seconds);
#   2. with --min-workers 2, kill rank 2, then once the job runs on 2
#      workers kill one more: the supervisor stops with one line naming
#      --min-workers, exit status 1, and the checkpoint it names resumes
#      (mpirun -np 2 ... --resume) to the end;
#   3. a discovery command that offers 2 slots, then 3: the job grows to 3
#      workers at its next iteration and finishes there.
tetrad=$1
out=$2
shift 2
mpirun="$*"
fail() {
  echo "check_elastic: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
# Fashion-MNIST (a synthetic set is separated perfectly: accuracies would
# not tell runs apart), 32 iterations per epoch (1536 samples, 3 x 16),
# 8 epochs: about 0.78 on 1000 test samples.
set -- --model mlp --data fashion-mnist --train-samples 1536 --test-samples 1000 --batch-size 16 \
  --epochs 8 --log-every 4 --eval-every 96 --timeout 20 --quiet
# shellcheck disable=SC2086
$mpirun -np 3 "$tetrad" train --cluster mpi "$@" --checkpoint-every 24 --out "$out/whole" \
  > "$out/whole.log" 2>&1 || { cat "$out/whole.log"; fail "the uninterrupted run failed"; }

field() {
  grep -o "\"$2\": *[^,]*" "$1/summary.json" | head -1 | sed 's/.*: *//'
}
# waits until RUN ($1) has a complete checkpoint (all $3 workers' files,
# written off the loop) at or past iteration $2
wait_checkpoint() {
  tries=0
  until complete_checkpoint "$1" "$2" "$3"; do
    tries=$((tries + 1))
    [ $tries -lt 900 ] || fail "no complete checkpoint at iteration $2 in 90 s"
    sleep 0.1
  done
}
complete_checkpoint() {
  for dir in "$1"/checkpoint/iter-*; do
    [ -d "$dir" ] || continue
    [ "$(echo "$dir" | sed 's/.*iter-0*//')" -ge "$2" ] || continue
    [ "$(ls "$dir"/rank-*.ckpt 2> /dev/null | wc -l)" -ge "$3" ] && return 0
  done
  return 1
}
# kills (SIGKILL) the rank $2 process of the run in folder $1
kill_rank() {
  for rank_pid in $(pgrep -f "train --cluster mpi.*$1"); do
    if tr '\0' '\n' < "/proc/$rank_pid/environ" 2> /dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
      kill -9 "$rank_pid"
      return 0
    fi
  done
  fail "no rank $2 process of $1"
}
# starts the supervisor on run folder $run in the background (pid: $pid),
# with the elastic flags given and the training flags of this script
start_elastic() {
  # shellcheck disable=SC2086
  "$tetrad" elastic --min-workers 2 --max-workers 3 --checkpoint-every 24 --out "$run" \
    --mpirun "$mpirun" "$@" -- train $train > "$run.log" 2>&1 &
  pid=$!
}
# waits for the supervisor and checks its exit status ($1) after $2
finish_elastic() {
  wait $pid
  status=$?
  cat "$run.log"
  [ "$status" = "$1" ] || fail "exit status $status after $2, $1 expected"
}
train="$*"

# 1. One rank lost: the job goes on on 2 workers.
run="$out/lost"
start_elastic
wait_checkpoint "$run" 48 3
kill_rank "$run" 2
finish_elastic 0 "losing one of 3 ranks"
grep -q "lost rank 2; restarting on 2 workers" "$run.log" || fail "no restart message"
[ "$(field "$run" workers)" = 2 ] || fail "summary.json: workers $(field "$run" workers), 2 expected"
grep -q '"from": 3' "$run/summary.json" || fail "summary.json records no resize from 3"
grep -q '"event":"lost"' "$run/elastic.jsonl" || fail "elastic.jsonl has no lost event"
grep -q '"event":"resumed"' "$run/elastic.jsonl" || fail "elastic.jsonl has no downtime"
grep -q '"seconds_lost"' "$run/summary.json" || fail "summary.json has no seconds_lost"
whole=$(field "$out/whole" final_test_accuracy)
got=$(field "$run" final_test_accuracy)
awk -v a="$got" -v b="$whole" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
  fail "final test accuracy $got, uninterrupted $whole (more than 1 point apart)"

# 2. Below --min-workers: one line, exit 1, the checkpoint intact.
run="$out/below"
start_elastic
wait_checkpoint "$run" 24 3
kill_rank "$run" 2
tries=0
until grep -q '"event":"resumed"' "$run/elastic.jsonl" 2> /dev/null; do
  tries=$((tries + 1))
  [ $tries -lt 900 ] || fail "the job did not resume on 2 workers in 90 s"
  sleep 0.1
done
kill_rank "$run" 1
finish_elastic 1 "falling below --min-workers"
line=$(tail -1 "$run.log")
echo "$line" | grep -q "below --min-workers 2; the last checkpoint (iteration [0-9]*) is intact" ||
  fail "last line: $line"
# shellcheck disable=SC2086
$mpirun -np 2 "$tetrad" train --cluster mpi "$@" --checkpoint-every 24 --resume "$run" \
  > "$out/below-resumed.log" 2>&1 || { cat "$out/below-resumed.log"; fail "the checkpoint did not resume"; }
grep -q '"status": "finished"' "$run/summary.json" || fail "the resumed run did not finish"

# 3. Growth: discovery offers 2 slots, then 3; the job grows at the next
# iteration (SIGUSR1 through mpirun: every rank checkpoints and stops).
# 24 epochs: the job must still be running when discovery's change is seen.
run="$out/grow"
train=$(echo "$train" | sed 's/--epochs 8/--epochs 24/')
echo "localhost:2" > "$out/hosts"
start_elastic --host-discovery "cat $out/hosts" --discovery-interval 0.5
wait_checkpoint "$run" 24 2
echo "localhost:3" > "$out/hosts"
finish_elastic 0 "growing"
grep -q '"event":"grow"' "$run/elastic.jsonl" || fail "elastic.jsonl has no grow event"
[ "$(field "$run" workers)" = 3 ] || fail "summary.json: workers $(field "$run" workers) after growing, 3 expected"
grep -q '"from": 2' "$run/summary.json" || fail "summary.json records no resize from 2"
echo "check_elastic: PASS (accuracy $got, uninterrupted $whole)"
