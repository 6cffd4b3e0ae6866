#!/bin/sh
# usage: check_bench_table.sh COMMAND...
# Runs a `tetrad bench collectives` command and checks its table: at least one
# data row, every #wrong (column 7) equal to 0, and where a sim/model column
# (9) exists, every ratio within 5% of 1.
output=$("$@" 2>/dev/null)
status=$?
printf '%s\n' "$output"
[ "$status" -eq 0 ] || { echo "check_bench_table: FAIL: exit status $status"; exit 1; }
printf '%s\n' "$output" | awk '
  /^#/ || /size\(B\)/ { next }
  NF >= 7 {
    rows++
    if ($7 != "0") { print "check_bench_table: FAIL: " $3 " at " $1 " B has #wrong " $7; bad = 1 }
    if (NF >= 9 && $9 != "-" && ($9 < 0.95 || $9 > 1.05)) {
      print "check_bench_table: FAIL: " $3 " at " $1 " B has sim/model " $9; bad = 1
    }
  }
  END {
    if (rows == 0) { print "check_bench_table: FAIL: no data rows"; exit 1 }
    if (bad) exit 1
    print "check_bench_table: PASS (" rows " rows)"
  }'
