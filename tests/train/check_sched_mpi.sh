#!/bin/sh
# usage: check_sched_mpi.sh TETRAD OUT_DIR MPIRUN [MPIRUN ARGS...]
# Under mpirun (2 ranks, real threads: the overlap is in wall-clock time)
# every overlapping policy ends with the test loss of --sched none, to the
# last printed digit (recursive doubling: sums independent of the buckets),
# and writes a timeline.json in wall-clock time.
tetrad=$1
out=$2
shift 2
mpirun="$*"
fail() {
  echo "check_sched_mpi: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
set -- --cluster mpi --model mlp --data synthetic --train-samples 1024 --test-samples 128 \
  --max-iters 12 --arch allreduce:rd --quiet
loss() {
  grep -o '"final_test_loss": *[^,]*' "$1/summary.json"
}
for sched in none wfbp fusion:256KiB mgwfbp priority:64KiB; do
  # shellcheck disable=SC2086
  $mpirun -np 2 "$tetrad" train "$@" --sched "$sched" --out "$out/$sched" > "$out/$sched.log" 2>&1 ||
    { cat "$out/$sched.log"; fail "$sched: the run failed"; }
  [ -n "$(loss "$out/$sched")" ] || fail "$sched: no final_test_loss in summary.json"
  grep -q '"clock": *"wall"' "$out/$sched/timeline.json" || fail "$sched: no wall-clock timeline"
done
expected=$(loss "$out/none")
for sched in wfbp fusion:256KiB mgwfbp priority:64KiB; do
  got=$(loss "$out/$sched")
  [ "$got" = "$expected" ] || fail "$sched: $got, none: $expected"
done
echo "check_sched_mpi: every policy matches none ($expected)"
