#!/bin/sh
# Training on a real network (scripts/netlab.sh) with 1% random packet loss
# gives the same result as on the clean network: TCP recovers every lost
# packet, and the MPI engine's messages arrive whole and in order. The runs
# are compared by every logged training loss and the final test loss and
# accuracy; the loss rule's drop counter must show that packets were lost.
#
# usage: netlab_loss.sh NETLAB LAB_ID TETRAD
# Exits 77 (skipped) where no lab can be built (not root, no namespaces).
set -u
netlab=$1
id=$2
tetrad=$3
"$netlab" check || exit 77
lab="$netlab -k $id"
$lab link 1 up
dir=$(mktemp -d /tmp/netlab-loss.XXXXXX)
cleanup() {
  $lab loss 0 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT
fail() {
  echo "netlab_loss: FAIL: $*"
  exit 1
}

train() {
  $lab mpirun -np 3 "$tetrad" train --cluster mpi --model mlp --data fashion-mnist \
    --train-samples 3072 --test-samples 500 --batch-size 64 --max-iters 30 --log-every 1 \
    --eval-every 0 --seed 5 --timeout 30 --quiet --out "$dir/$1" >"$dir/$1.log" 2>&1 ||
    { cat "$dir/$1.log"; fail "the $1 run failed"; }
}
# The numbers that decide whether two runs are the same.
result() {
  grep -o '"loss": *[^,}]*' "$dir/$1/metrics.jsonl"
  grep -Eo '"final_test_(loss|accuracy)": *[^,}]*' "$dir/$1/summary.json"
}

train clean
$lab loss 1
train lossy
dropped=$(ip netns exec "tetrad-nl$id-0" nft list table inet netlab |
  sed -n 's/.*counter packets \([0-9]*\).*/\1/p')
echo "netlab_loss: host 0 dropped ${dropped:-0} packets"
[ "${dropped:-0}" -gt 0 ] || fail "no packet was dropped: the loss rule did nothing"
result clean >"$dir/clean.result"
result lossy >"$dir/lossy.result"
[ "$(wc -l <"$dir/clean.result")" -ge 3 ] || fail "no losses logged: $(cat "$dir/clean.result")"
if ! cmp -s "$dir/clean.result" "$dir/lossy.result"; then
  diff "$dir/clean.result" "$dir/lossy.result"
  fail "the run under 1% loss differs from the clean run"
fi
echo "netlab_loss: $(wc -l <"$dir/clean.result") numbers identical with and without loss"
echo "netlab_loss: PASS"
