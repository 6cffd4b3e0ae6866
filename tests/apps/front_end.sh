#!/bin/sh
# usage: front_end.sh TETRAD
# The front end `tetrad` loads no LibTorch, runs what needs none by itself,
# and hands the rest to tetrad-torch beside it (train/libtorch_parts.h):
#   1. ldd lists no LibTorch library;
#   2. a copy of `tetrad` alone in a folder (no tetrad-torch beside it) runs
#      --help, a refused command line and a timing-only run of a built-in
#      model, and refuses a run that trains with one line naming the missing
#      program (exit 1);
#   3. beside tetrad-torch, a LibTorch-only bench answers --help with its own
#      options, and a run that trains finishes.
set -u
tetrad=$1
fail() { echo "front_end: FAIL: $*"; exit 1; }

if ldd "$tetrad" | grep -Eq 'libtorch|libc10'; then
  ldd "$tetrad" | grep -E 'libtorch|libc10'
  fail "the front end links LibTorch"
fi

alone=$(mktemp -d)
trap 'rm -rf "$alone"' EXIT
cp "$tetrad" "$alone/tetrad"
"$alone/tetrad" --help > /dev/null || fail "--help"
"$alone/tetrad" train --workers 0 --quiet 2> "$alone/err"; status=$?
[ "$status" -eq 2 ] || fail "refused command line: exit $status, expected 2"
grep -q "invalid --workers 0" "$alone/err" || fail "refused command line: $(cat "$alone/err")"
"$alone/tetrad" train --timing-only --model cnn --workers 4 --max-iters 2 --quiet \
  --compute flops:100 --cluster sim:4x10Gbps,25us --out "$alone/run" > "$alone/out" 2>&1 ||
  fail "timing-only run without tetrad-torch: $(cat "$alone/out")"
grep -q '"timing_only": true' "$alone/run/summary.json" || fail "no timing-only summary"
"$alone/tetrad" train --model mlp --data synthetic --train-samples 256 --test-samples 16 --batch-size 8 \
  --max-iters 1 --quiet --out "$alone/real" > /dev/null 2> "$alone/err"; status=$?
[ "$status" -eq 1 ] || fail "a run that trains without tetrad-torch: exit $status, expected 1"
[ "$(wc -l < "$alone/err")" -eq 1 ] || fail "more than one line: $(cat "$alone/err")"
grep -q "a run that trains needs LibTorch, and .*tetrad-torch could not be run" "$alone/err" ||
  fail "unexpected error: $(cat "$alone/err")"
[ ! -e "$alone/real" ] || fail "the refused run left a folder"

"$tetrad" bench train-overhead --help > "$alone/help" 2>&1 || fail "bench train-overhead --help"
grep -q -- "--data-dir" "$alone/help" || fail "bench train-overhead --help: $(cat "$alone/help")"
"$tetrad" train --model mlp --data synthetic --train-samples 256 --test-samples 16 --batch-size 8 --max-iters 1 \
  --quiet --out "$alone/real" > /dev/null || fail "a run that trains, beside tetrad-torch"
grep -q '"status": "finished"' "$alone/real/summary.json" || fail "no finished summary"
echo "front_end: PASS"
