#!/bin/sh
# A fault on a real network (scripts/netlab.sh), under mpirun across the
# lab's hosts, with the fault helper's hub mode (tests/transport_mpi).
#
# usage: netlab_fault.sh NETLAB LAB_ID HELPER MODE
#   link-down  host 1's link goes down mid-run (timeout 4 s): every rank
#              fails with a timeout naming a peer (ranks 0 and 2 name rank
#              1, rank 1 names rank 0) within the timeout plus slack. mpirun
#              cannot reach host 1's daemon while the link is down (nor
#              carry rank 1's output), so the test waits for ranks 0 and 2
#              to report and for rank 1's process to exit, then brings the
#              link back; the job must then end non-zero within seconds.
#   stop       rank 1 is stopped with SIGSTOP (timeout 4 s): ranks 0 and 2
#              fail naming rank 1 within the timeout plus slack
#   kill       rank 1 is killed with SIGKILL (timeout 60 s): the job ends
#              non-zero within 20 s
# Exits 77 (skipped) where no lab can be built (not root, no namespaces).
set -u
netlab=$1
id=$2
helper=$3
mode=$4
"$netlab" check || exit 77
lab="$netlab -k $id"
# A test killed by its timeout leaves no trap behind: start clean.
$lab link 1 up
$lab loss 0
out=$(mktemp /tmp/netlab-fault.XXXXXX)
job=""
victim=""
cleanup() {
  $lab link 1 up 2>/dev/null
  [ -n "$victim" ] && kill -CONT "$victim" 2>/dev/null
  [ -n "$job" ] && kill "$job" 2>/dev/null
  rm -f "$out"
}
trap cleanup EXIT
fail() {
  cat "$out"
  echo "netlab_fault $mode: FAIL: $*"
  exit 1
}

case $mode in
  link-down | stop) timeout=4 limit=16 ;;
  kill) timeout=60 limit=20 ;;
  *) echo "netlab_fault: unknown mode $mode" >&2; exit 2 ;;
esac

$lab mpirun -np 3 "$helper" hub 1 $timeout >"$out" 2>&1 &
job=$!
# Wait for the first exchange (the job is running on every host).
waited=0
until grep -q "hub running" "$out"; do
  kill -0 $job 2>/dev/null || fail "the job ended before the fault"
  [ $waited -ge 300 ] && fail "the job did not start within 30 s"
  sleep 0.1
  waited=$((waited + 1))
done
sleep 1

# Rank 1 runs on host 1: its process is the helper in that namespace.
for pid in $(ip netns pids "tetrad-nl$id-1"); do
  case $(cat /proc/$pid/comm 2>/dev/null) in tetrad_mpi_faul*) victim=$pid ;; esac
done
[ -n "$victim" ] || fail "no helper process in host 1"

start=$(date +%s.%N)
case $mode in
  link-down) $lab link 1 down ;;
  stop) kill -STOP "$victim" ;;
  kill)
    kill -KILL "$victim"
    victim=""
    ;;
esac
since() { awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }'; }
within() { awk -v e="$1" -v l="$limit" 'BEGIN { exit !(e <= l) }'; }
if [ $mode = link-down ]; then
  # Ranks 0 and 2 report through mpirun; rank 1 is cut off: its process
  # must end on its own.
  until [ "$(grep -c "TimeoutError: rank [02]:" "$out")" -ge 2 ] && ! kill -0 "$victim" 2>/dev/null
  do
    within "$(since)" || fail "ranks did not all fail within $limit s of the fault"
    sleep 0.1
  done
  victim=""
  echo "netlab_fault $mode: every rank failed $(since) s after the fault; link back up"
  $lab link 1 up
  start=$(date +%s.%N)
  limit=20
fi
status=0
wait $job || status=$?
job=""
elapsed=$(since)
cat "$out"
echo "netlab_fault $mode: job ended $elapsed s after the fault (or the link's return), status $status"
[ "$status" -ne 0 ] || fail "the job exited 0"
within "$elapsed" || fail "the job took $elapsed s to end (limit $limit s)"

expect() {
  grep -Eq "$1" "$out" || fail "no line matches: $1"
}
case $mode in
  link-down)
    expect "TimeoutError: rank 0: (recv from|send to) rank 1 .*timed out after $timeout s"
    expect "TimeoutError: rank 2: (recv from|send to) rank 1 .*timed out after $timeout s"
    expect "TimeoutError: rank 1: (recv from|send to) rank [02] .*timed out after $timeout s"
    ;;
  stop)
    expect "TimeoutError: rank 0: (recv from|send to) rank 1 .*timed out after $timeout s"
    expect "TimeoutError: rank 2: (recv from|send to) rank 1 .*timed out after $timeout s"
    ;;
  kill)
    expect "signal 9|Killed|killed"
    ;;
esac
echo "netlab_fault $mode: PASS"
