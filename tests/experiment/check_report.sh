#!/bin/sh
# usage: check_report.sh TETRAD FIXTURE_RUNS WORK_DIR
# Copies checked-in run folders to WORK_DIR, runs `tetrad report` on them and
# checks report.md (tables per cluster, speed-ups against the baseline) and
# every plot: present, non-empty, a PNG (\x89PNG) or SVG (<svg) file.
tetrad=$1
fixture=$2
work=$3
fail() {
  echo "check_report: FAIL: $*"
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
cp -r "$fixture"/. "$work"/
log=$("$tetrad" report "$work" 2>&1) || { printf '%s\n' "$log"; fail "exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "report: $work/report.md" || fail "report path not printed"
report="$work/report.md"
[ -s "$report" ] || fail "no report.md"
for cluster in slow fast fast8; do
  grep -q "^## cluster $cluster:" "$report" || fail "no table for cluster $cluster"
done
# slow: fp16 halves the communication: 4 ms per iteration instead of 6 ms,
# time to target 80 ms instead of 120 ms, half the bytes.
# fp16 is the cluster's fp16 baseline, so its "vs fp16" columns are "-".
# The fixture's runs predate codec charging: codec 0.
grep -q "^| fp16 (fp16 baseline) | bsp | allreduce:ring | fp16 | none | - | 1 | 0.8000 | 80.00 ms | 20 | 1.50× | - | 4.00 ms | 1.50× | - | 195.3 KiB | 2.00 ms | 0.0 us | 2.00 ms | 0% | 50% |$" "$report" ||
  fail "slow fp16 row: expected time to target 80 ms (20 iterations), speed-ups 1.50x, 195.3 KiB, 50% communication"
grep -q "^| bsp (baseline) |" "$report" || fail "no baseline row"
grep -q "topk-slow-s1-7a8b9c0d.*failed" "$report" || fail "the failed run is not listed"
count=0
for plot in accuracy_time-slow accuracy_bytes-slow time_breakdown-slow accuracy_time-fast \
    accuracy_bytes-fast8 time_breakdown-fast8 scaling; do
  png="$work/plots/$plot.png"
  svg="$work/plots/$plot.svg"
  [ -s "$png" ] || fail "missing or empty $png"
  [ -s "$svg" ] || fail "missing or empty $svg"
  [ "$(head -c 4 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e47" ] || fail "$png is not a PNG"
  head -c 2000 "$svg" | grep -q "<svg" || fail "$svg is not an SVG"
  grep -q "plots/$plot.png" "$report" || fail "report.md does not link $plot.png"
  count=$((count + 1))
done
echo "check_report: PASS ($count plots)"
