#!/bin/sh
# usage: check_throughput.sh S COMMAND... (a timing-only `tetrad train ... --out DIR`)
# Passes when the run succeeds and its summary's throughput_samples_per_s is S
# to 9 significant digits.
expected=$1
shift
"$@" || { echo "check_throughput: FAIL: the run failed"; exit 1; }
out=""
prev=""
for arg in "$@"; do
  [ "$prev" = "--out" ] && out=$arg
  prev=$arg
done
got=$(sed -n 's/.*"throughput_samples_per_s": *\([0-9.e+-]*\).*/\1/p' "$out/summary.json")
if [ "$(printf '%.9g' "$got")" != "$(printf '%.9g' "$expected")" ]; then
  echo "check_throughput: FAIL: throughput $got, expected $expected"
  exit 1
fi
echo "check_throughput: PASS ($got)"
