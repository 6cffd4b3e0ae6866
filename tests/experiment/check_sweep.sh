#!/bin/sh
# usage: check_sweep.sh TETRAD SWEEP.toml OUT_DIR DOCS.md
# Runs a 2 methods x 2 clusters sweep into OUT_DIR (emptied first) and checks:
# 4 runs ran and results.csv/results.jsonl hold 4 rows with the columns that
# DOCS.md documents; after deleting one run's summary.json and another whole
# run folder, a rerun runs exactly those two; a third run runs nothing; then
# `tetrad report` on the folder writes report.md and the plots. The sweep's
# [map] table draws the method map after the first sweep.
tetrad=$1
sweep=$2
out=$3
docs=$4
fail() {
  echo "check_sweep: FAIL: $*"
  exit 1
}
rm -rf "$out"

log=$("$tetrad" run "$sweep" --out "$out" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "first sweep: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "4 runs (0 already done, 4 to run)" || fail "first sweep: not 4 runs to run"
[ "$(printf '%s\n' "$log" | grep -c '\] ok ')" -eq 4 ] || fail "first sweep: not 4 runs ok"

header=$(head -n 1 "$out/results.csv")
[ "$(tail -n +2 "$out/results.csv" | wc -l)" -eq 4 ] || fail "results.csv: not 4 rows"
[ "$(wc -l < "$out/results.jsonl")" -eq 4 ] || fail "results.jsonl: not 4 rows"
for column in method cluster seed status sync arch compress sched workers final_accuracy \
    time_to_target train_time bytes_per_worker_per_iter compute_time comm_time throughput; do
  printf '%s\n' "$header" | tr ',' '\n' | grep -qx "$column" || fail "results.csv lacks column $column"
done
# Every column is documented (a table row "| `name` |" in DOCS.md).
for column in $(printf '%s\n' "$header" | tr ',' ' '); do
  grep -q "^| \`$column\` |" "$docs" || fail "column $column is not documented in $docs"
done
[ "$(tail -n +2 "$out/results.csv" | grep -c ',ok,')" -eq 4 ] || fail "results.csv: not 4 ok rows"
for label in plain,fast plain,slow topk,fast topk,slow; do
  grep -q "^$label,1,ok," "$out/results.csv" || fail "results.csv: no ok row for $label"
done
grep -q '"final_accuracy":0\.[0-9]' "$out/results.jsonl" || fail "results.jsonl: no final_accuracy"
# [map]: the method map of the first cluster, drawn after the runs.
[ "$(tail -n +2 "$out/map.csv" | wc -l)" -eq 4 ] || fail "map.csv: not 2 methods x 2 cells"
[ -s "$out/map_winner.png" ] && [ -s "$out/map_time.svg" ] || fail "[map]: no pictures"
printf '%s\n' "$log" | grep -q "^# winner per cell" || fail "[map]: no winner table"

# Resume: remove one summary.json and one whole run folder.
first=$(ls -d "$out"/topk-slow-s1-*)
second=$(ls -d "$out"/plain-fast-s1-*)
kept=$(ls -d "$out"/plain-slow-s1-*)
[ -d "$first" ] && [ -d "$second" ] && [ -d "$kept" ] || fail "run folders are not named <method>-<cluster>-s<seed>-<hash>"
rm "$first/summary.json"
rm -r "$second"
kept_before=$(stat -c %Y "$kept/summary.json")
log=$("$tetrad" run "$sweep" --out "$out" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "second sweep: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q "4 runs (2 already done, 2 to run)" || fail "second sweep: not 2 to run"
[ "$(printf '%s\n' "$log" | grep -c '\] ok ')" -eq 2 ] || fail "second sweep: not 2 runs ok"
printf '%s\n' "$log" | grep -q "ok     $(basename "$first"):" || fail "second sweep: $first not rerun"
printf '%s\n' "$log" | grep -q "ok     $(basename "$second"):" || fail "second sweep: $second not rerun"
[ -f "$first/summary.json" ] && [ -f "$second/summary.json" ] || fail "second sweep: summaries missing"
[ "$(stat -c %Y "$kept/summary.json")" = "$kept_before" ] || fail "a finished run was rerun"
[ "$(tail -n +2 "$out/results.csv" | grep -c ',ok,')" -eq 4 ] || fail "results.csv after resume: not 4 ok rows"

log=$("$tetrad" run "$sweep" --out "$out" 2>&1) || fail "third sweep: exit status $?"
printf '%s\n' "$log" | grep -q "4 runs (4 already done, 0 to run)" || fail "third sweep ran something"

# --only: one method on one cluster, already done.
log=$("$tetrad" run "$sweep" --out "$out" --only topk,slow 2>&1) || fail "--only: exit status $?"
printf '%s\n' "$log" | grep -q "1 runs (1 already done, 0 to run)" || fail "--only did not select 1 run"

# The report of this sweep.
log=$("$tetrad" report "$out" 2>&1) || { printf '%s\n' "$log"; fail "report: exit status $?"; }
printf '%s\n' "$log"
[ -s "$out/report.md" ] || fail "no report.md"
grep -q "^| plain (baseline) |" "$out/report.md" || fail "report.md: no baseline row"
grep -q "^| topk |" "$out/report.md" || fail "report.md: no topk row"
for plot in accuracy_time-fast accuracy_bytes-slow time_breakdown-slow; do
  [ -s "$out/plots/$plot.png" ] && [ -s "$out/plots/$plot.svg" ] || fail "missing plot $plot"
done
echo "check_sweep: PASS"
