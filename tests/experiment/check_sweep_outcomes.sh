#!/bin/sh
# usage: check_sweep_outcomes.sh TETRAD SWEEP.toml OUT_DIR
# A sweep of a run that finishes and one that diverges: `tetrad run` exits
# 0, reports the diverged run with its error line, keeps it in results.csv
# with status "diverged" and does not rerun it; report.md lists it. Then the
# finished run is made to look interrupted (its summary says so, as after
# SIGTERM): the next sweep resumes it from its newest checkpoint with
# --resume, and it ends with the metrics of the uninterrupted run.
tetrad=$1
sweep=$2
out=$3
fail() {
  echo "check_sweep_outcomes: FAIL: $*"
  exit 1
}
rm -rf "$out"
log=$("$tetrad" run "$sweep" --out "$out" --jobs 2 2>&1) ||
  { printf '%s\n' "$log"; fail "first sweep: exit status $? (a diverged run is a result)"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q '\] ok     steady-' || fail "the steady run is not ok"
printf '%s\n' "$log" | grep -Eq '\] diverged exploding-[^:]*: non-finite (loss|gradient)' ||
  fail "the exploding run is not reported as diverged with its error"
printf '%s\n' "$log" | grep -q "1 ok, 1 diverged, 0 interrupted, 0 failed" || fail "wrong totals"
grep -q "^exploding,star,1,diverged," "$out/results.csv" || fail "results.csv: no diverged row"
grep -q "^steady,star,1,ok," "$out/results.csv" || fail "results.csv: no ok row"

log=$("$tetrad" run "$sweep" --out "$out" 2>&1) || fail "second sweep: exit status $?"
printf '%s\n' "$log" | grep -q "2 runs (2 already done, 0 to run)" ||
  { printf '%s\n' "$log"; fail "second sweep reran something"; }

"$tetrad" report "$out" > /dev/null 2>&1 || fail "report: exit status $?"
grep -q "^- \`exploding-.*\`: diverged" "$out/report.md" || fail "report.md does not list the diverged run"

# Interrupted: the summary of a run a signal stopped says so; the sweep resumes it.
steady=$(ls -d "$out"/steady-star-s1-*)
[ -d "$steady/checkpoint" ] || fail "no checkpoint folder in $steady"
sed 's/"[a-z_]*wall_time[a-z_]*": *[0-9.e+-]*,\{0,1\}//' "$steady/metrics.jsonl" > "$out/uninterrupted.metrics"
sed -i 's/"status": "finished"/"status": "interrupted"/' "$steady/summary.json"
grep -q '"status": "interrupted"' "$steady/summary.json" || fail "could not mark $steady interrupted"
log=$("$tetrad" run "$sweep" --out "$out" 2>&1) || { printf '%s\n' "$log"; fail "third sweep: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "2 runs (1 already done, 1 to run)" || fail "third sweep: not 1 to run"
printf '%s\n' "$log" | grep -q "resume $(basename "$steady")" || fail "the interrupted run was not resumed"
printf '%s\n' "$log" | grep -q '\] ok     steady-' || fail "the resumed run is not ok"
grep -q '"status": "finished"' "$steady/summary.json" || fail "the resumed run did not finish"
grep -q -- '"--resume"' "$steady/run.json" || fail "run.json does not record --resume"
sed 's/"[a-z_]*wall_time[a-z_]*": *[0-9.e+-]*,\{0,1\}//' "$steady/metrics.jsonl" > "$out/resumed.metrics"
diff "$out/uninterrupted.metrics" "$out/resumed.metrics" > /dev/null ||
  fail "the resumed run's metrics differ from the uninterrupted run's"
echo "check_sweep_outcomes: PASS"
