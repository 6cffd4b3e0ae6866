#!/bin/sh
# usage: check_sorted.sh MIN_LINES COMMAND...
# Runs `tetrad advise ...` and passes when it exits 0, prints at least
# MIN_LINES ranking lines ("  RANK  TIME ms  METHOD ..."), their ranks are
# 1, 2, 3, ... and their printed times never decrease — separately before and
# after the "# no convergence theory" line (methods without a multiplier are
# ranked after the others, by time per iteration).
min=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "check_sorted: FAIL: exit status $status"
  exit 1
fi
printf '%s\n' "$output" | awk -v min="$min" '
  /^# no convergence theory/ { last = 0; next }
  /^ *[0-9]+ +[0-9]+\.[0-9]+ ms / {
    n++
    if ($1 != n) { printf "check_sorted: FAIL: rank %s on line %d\n", $1, n; bad = 1 }
    if (n > 1 && $2 + 0 < last) { printf "check_sorted: FAIL: %s ms after %s ms\n", $2, last; bad = 1 }
    last = $2 + 0
  }
  END {
    if (n < min) { printf "check_sorted: FAIL: %d ranking lines, expected at least %d\n", n, min; bad = 1 }
    if (bad) exit 1
    printf "check_sorted: PASS (%d lines sorted)\n", n
  }'
