#!/bin/sh
# A lost host on a real network (scripts/netlab.sh): `tetrad elastic` runs
# mlp on the lab's 3 hosts (one rank each, --timeout 5); once the job has
# checkpointed, host 2's link goes down. The survivors time out naming it,
# mpirun cannot end the job (host 2's daemon is unreachable), so the
# supervisor ends it, drops host 2 (the silent rank's host) and restarts on
# hosts 0 and 1 from the checkpoint; the run finishes on 2 workers.
#
# usage: netlab_elastic.sh NETLAB LAB_ID TETRAD
# Exits 77 (skipped) where no lab can be built (not root, no namespaces).
set -u
netlab=$1
id=$2
tetrad=$3
"$netlab" check || exit 77
lab="$netlab -k $id"
$lab link 2 up
$lab loss 0
out=$(mktemp -d /tmp/netlab-elastic.XXXXXX)
job=""
cleanup() {
  $lab link 2 up 2> /dev/null
  [ -n "$job" ] && kill "$job" 2> /dev/null
  rm -rf "$out"
}
trap cleanup EXIT
fail() {
  cat "$out/elastic.log" "$out"/run/elastic/*.log 2> /dev/null | tail -40
  echo "netlab_elastic: FAIL: $*"
  exit 1
}
for address in $($lab hosts); do echo "$address slots=1"; done > "$out/hosts"
"$tetrad" elastic --min-workers 2 --max-workers 3 --hostfile "$out/hosts" --checkpoint-every 8 \
  --out "$out/run" --mpirun "$lab mpirun" -- train --model mlp --data synthetic \
  --train-samples 1536 --test-samples 256 --batch-size 16 --epochs 6 --timeout 5 --quiet \
  > "$out/elastic.log" 2>&1 &
job=$!
waited=0
# A complete checkpoint: the files of all 3 workers in one folder.
complete() {
  for dir in "$out"/run/checkpoint/iter-*; do
    [ "$(ls "$dir"/rank-*.ckpt 2> /dev/null | wc -l)" -ge 3 ] && return 0
  done
  return 1
}
until complete; do
  kill -0 $job 2> /dev/null || fail "the job ended before the fault"
  [ $waited -ge 600 ] && fail "no checkpoint within 60 s"
  sleep 0.1
  waited=$((waited + 1))
done
$lab link 2 down
start=$(date +%s)
wait $job
status=$?
job=""
elapsed=$(($(date +%s) - start))
[ "$status" = 0 ] || fail "exit status $status after losing host 2, 0 expected"
grep -q "lost rank 2; restarting on 2 workers" "$out/elastic.log" || fail "no restart on 2 workers"
grep -q '"workers": 2' "$out/run/summary.json" || fail "summary.json: not 2 workers"
cat "$out/elastic.log"
echo "netlab_elastic: PASS (host 2 lost, finished on 2 workers ${elapsed} s after the fault)"
