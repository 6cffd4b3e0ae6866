#!/bin/sh
# usage: check_report_seeds.sh TETRAD FIXTURE_RUNS WORK_DIR
# `tetrad report` on the seeds fixture (3 seeds per method): report.md gives
# means ± std, marks a tie, the fp16 baseline and the layer-wise run, and
# gnuplot draws the mean curves with their band (PNG and SVG).
tetrad=$1
fixture=$2
work=$3
fail() {
  echo "check_report_seeds: FAIL: $*"
  exit 1
}
rm -rf "$work"
mkdir -p "$work"
cp -r "$fixture"/. "$work"/
log=$("$tetrad" report "$work" 2>&1) || { printf '%s\n' "$log"; fail "exit status $?"; }
printf '%s\n' "$log"
report="$work/report.md"
grep -q "^| bsp (baseline) | .* | 3 | 0.8200 ± 0.0200 | 1.200 s ± 200.00 ms | 120 ± 20.0 |" "$report" || fail "bsp: no mean ± std"
grep -q "^| topk | .* | 1.09× (tie) | 0.82× |" "$report" || fail "topk: no tie against the baseline, or no fp16 column"
grep -q "^| fp16 (fp16 baseline) |" "$report" || fail "no fp16 baseline"
grep -q "^| fp16-lw (layer-wise) |" "$report" || fail "no layer-wise label"
grep -q "filledcurves" "$work/plots/report.gp" || fail "no band in the plot script"
for plot in accuracy_time-net accuracy_bytes-net; do
  png="$work/plots/$plot.png"
  [ "$(head -c 4 "$png" | od -An -tx1 | tr -d ' \n')" = "89504e47" ] || fail "$png is not a PNG"
  head -c 2000 "$work/plots/$plot.svg" | grep -q "<svg" || fail "$plot.svg is not an SVG"
done
echo "check_report_seeds: PASS"
