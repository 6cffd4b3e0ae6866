#!/bin/sh
# usage: check_tuning.sh TETRAD SWEEP.toml OUT_DIR
# A sweep with tune_lr = [500, 1e-6, 0.1] for one method (tiny synthetic
# runs): --dry-run lists the 3 tuning runs and the tuned method's runs "after
# tuning"; the sweep runs the grid for half of the 24 iterations on the
# first cluster (500 diverges; 1e-6 ends with a lower test accuracy than
# 0.1), picks 0.1, and the method's full runs train with --lr 0.1 (config.json,
# results.csv lr and lr_tuned_from). Then a half-finished tuning phase (one
# point's summary.json removed, the tuned runs deleted) resumes: only that
# point and the tuned runs run again. `tetrad report` shows the tuning table.
tetrad=$1
sweep=$2
out=$3
fail() {
  echo "check_tuning: FAIL: $*"
  exit 1
}
rm -rf "$out"

log=$("$tetrad" run "$sweep" --out "$out" --dry-run 2>&1) || { printf '%s\n' "$log"; fail "dry run: exit status $?"; }
printf '%s\n' "$log"
[ "$(printf '%s\n' "$log" | grep -c '^to run  *tuning/tuned-lr')" -eq 3 ] || fail "dry run: not 3 tuning runs to run"
[ "$(printf '%s\n' "$log" | grep -c '^after tuning tuned-.*--lr <tuned>')" -eq 2 ] || fail "dry run: tuned runs not listed after tuning"
printf '%s\n' "$log" | grep -q "^3 tuning runs (0 already done, 3 to run)" || fail "dry run: tuning count"
printf '%s\n' "$log" | grep -q "^4 runs (0 already done, 4 to run) .* all valid" || fail "dry run: run count"
[ ! -d "$out/tuning" ] || fail "dry run created run folders"

log=$("$tetrad" run "$sweep" --out "$out" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "sweep: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "(lr tuning): 3 runs (0 already done, 3 to run)" || fail "tuning phase: not 3 runs"
printf '%s\n' "$log" | grep -q "lr tuning of tuned by test_accuracy after 12 iterations: 500 diverged, 1e-06 .*, 0.1 .*; pick 0.1$" ||
  fail "tuning did not pick 0.1 (or 500 did not diverge)"
printf '%s\n' "$log" | grep -q ": 4 runs (0 already done, 4 to run)" || fail "full phase: not 4 runs"
[ -f "$out/tuning/tuning.json" ] || fail "no tuning/tuning.json"
low=$(ls -d "$out"/tuning/tuned-lr1e-06-fast-s1-*)
high=$(ls -d "$out"/tuning/tuned-lr0.1-fast-s1-*)
[ -d "$low" ] && [ -d "$high" ] || fail "tuning run folders are not tuning/<method>-lr<rate>-<cluster>-s<seed>-<hash>"
grep -q '"max_iters": 12' "$high/config.json" || fail "the tuning run did not train half of 24 iterations"
grep -q '"phase": "tuning"' "$high/run.json" || fail "tuning run.json lacks its phase"
# The metric clearly differs: 1e-6 ends below 0.1.
acc() { sed -n 's/.*"final_test_accuracy": \([0-9.e-]*\).*/\1/p' "$1/summary.json"; }
awk -v a="$(acc "$low")" -v b="$(acc "$high")" 'BEGIN { exit !(a + 0.05 < b) }' ||
  fail "1e-6 ($(acc "$low")) does not end clearly below 0.1 ($(acc "$high"))"
for cluster in fast slow; do
  run=$(ls -d "$out"/tuned-$cluster-s1-*)
  grep -q '"lr": 0.1,' "$run/config.json" || fail "the $cluster run of tuned did not train with lr 0.1"
  grep -q "^tuned,$cluster,1,ok,.*,24,0.1,500;1e-06;0.1," "$out/results.csv" ||
    fail "results.csv: tuned on $cluster lacks lr 0.1 and lr_tuned_from"
done
grep -q "^plain,fast,1,ok,.*,24,0.05,," "$out/results.csv" || fail "results.csv: plain keeps lr 0.05, not tuned"

# Half-finished tuning phase: one point lost its summary, the tuned runs are gone.
kept=$(stat -c %Y "$high/summary.json")
rm "$low/summary.json"
rm -r "$out"/tuned-fast-s1-* "$out"/tuned-slow-s1-*
log=$("$tetrad" run "$sweep" --out "$out" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "resume: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "(lr tuning): 3 runs (2 already done, 1 to run)" || fail "resume: the tuning phase redid finished runs"
printf '%s\n' "$log" | grep -q "ok     $(basename "$low"):" || fail "resume: $low not rerun"
[ "$(stat -c %Y "$high/summary.json")" = "$kept" ] || fail "resume: a finished tuning run was rerun"
printf '%s\n' "$log" | grep -q ": 4 runs (2 already done, 2 to run)" || fail "resume: not the 2 tuned runs"
log=$("$tetrad" run "$sweep" --out "$out" 2>&1) || fail "third sweep: exit status $?"
printf '%s\n' "$log" | grep -q "(lr tuning): 3 runs (3 already done, 0 to run)" || fail "third sweep: tuning reran"
printf '%s\n' "$log" | grep -q ": 4 runs (4 already done, 0 to run)" || fail "third sweep ran something"

log=$("$tetrad" report "$out" 2>&1) || { printf '%s\n' "$log"; fail "report: exit status $?"; }
printf '%s\n' "$log"
report="$out/report.md"
grep -q "^## Learning-rate tuning" "$report" || fail "report.md: no tuning section"
grep -q "^### tuned: test_accuracy after 50% of a run's iterations (12 iterations)" "$report" || fail "report.md: no table for tuned"
grep -q "^| 0.1 | ok | [01]\.[0-9]* | .* | \*\*pick\*\* |$" "$report" || fail "report.md: 0.1 is not marked as the pick"
grep -q "^| 500 | diverged | - |" "$report" || fail "report.md: the diverged point is not shown"
grep -q "^Tuning cost: 3 runs, [0-9]* iterations" "$report" || fail "report.md: no tuning cost"
grep -q "^| tuned | .* | 0.1 (tuned) |" "$report" || fail "report.md: the tuned lr is not shown"
echo "check_tuning: PASS"
