#!/bin/sh
# usage: check_sweep_retime.sh TETRAD SWEEP.toml OUT_DIR
# retime = true: --dry-run lists the synchronous runs on the second cluster
# as retimes of the first cluster's runs of the same seed; the sweep trains
# 8 runs (plain, topk x 2 seeds on "slow"; asp x 2 seeds on both) and then
# retimes 4. Each retimed run equals a run trained on that network (the same
# sweep without retime, in OUT_DIR/trained): time to target, iterations to
# target, training time, final accuracy and bytes per worker per iteration
# as text in results.csv. The retimed folders name their source (run.json,
# results.csv, summary.json), hold the replay in timing-only/, and the report
# marks them. A second `tetrad run` has nothing left to do.
tetrad=$1
sweep=$2
out=$3
fail() {
  echo "check_sweep_retime: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"

log=$("$tetrad" run "$sweep" --out "$out/retimed" --dry-run 2>&1) || { printf '%s\n' "$log"; fail "dry run: exit status $?"; }
printf '%s\n' "$log"
[ "$(printf '%s\n' "$log" | grep -c '^to retime  *\(plain\|topk\)-fast-s[12]-.*: retime of \(plain\|topk\)-slow-s[12]-.* --cluster sim:10Gbps,25us$')" -eq 4 ] ||
  fail "dry run: not 4 retimes of the slow runs"
[ "$(printf '%s\n' "$log" | grep -c '^to run  *asp-\(slow\|fast\)')" -eq 4 ] || fail "dry run: asp does not train on both clusters"

log=$("$tetrad" run "$sweep" --out "$out/retimed" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "sweep: exit status $?"; }
printf '%s\n' "$log"
printf '%s\n' "$log" | grep -q ": 8 runs (0 already done, 8 to run)" || fail "not 8 trained runs"
printf '%s\n' "$log" | grep -q "(retiming): 4 runs (0 already done, 4 to run)" || fail "not 4 retimes"

# The same sweep with every run trained.
sed 's/^retime = true/retime = false/' "$sweep" > "$out/trained.toml"
log=$("$tetrad" run "$out/trained.toml" --out "$out/trained" --jobs 2 2>&1) || { printf '%s\n' "$log"; fail "trained sweep: exit status $?"; }

# results.csv columns by name.
column() { # FILE METHOD CLUSTER SEED COLUMN (results.csv quotes fields with commas)
  python3 -c '
import csv, sys
f, m, c, s, col = sys.argv[1:]
for row in csv.DictReader(open(f)):
    if row["method"] == m and row["cluster"] == c and row["seed"] == s:
        print(row[col])' "$@"
}
for method in plain topk; do
  for seed in 1 2; do
    source=$(column "$out/retimed/results.csv" $method fast $seed retimed_from)
    case "$source" in $method-slow-s$seed-*) ;; *) fail "$method seed $seed on fast: retimed_from '$source'" ;; esac
    [ -z "$(column "$out/retimed/results.csv" $method slow $seed retimed_from)" ] || fail "$method on slow is not trained"
    for col in status final_accuracy time_to_target iterations_to_target train_time bytes_per_worker_per_iter iterations; do
      a=$(column "$out/retimed/results.csv" $method fast $seed $col)
      b=$(column "$out/trained/results.csv" $method fast $seed $col)
      [ -n "$a" ] && [ "$a" = "$b" ] || fail "$method seed $seed on fast: $col retimed '$a', trained '$b'"
    done
    folder=$(ls -d "$out"/retimed/$method-fast-s$seed-*)
    [ -f "$folder/timing-only/summary.json" ] || fail "$folder has no timing-only/ replay"
    grep -q "\"retimed_from\": \"$source\"" "$folder/run.json" || fail "$folder/run.json does not name its source"
    grep -q '"retimed_from":' "$folder/summary.json" || fail "$folder/summary.json does not name its source"
  done
  # The fast network is faster: the retime is not a copy of the source.
  a=$(column "$out/retimed/results.csv" $method fast 1 train_time)
  b=$(column "$out/retimed/results.csv" $method slow 1 train_time)
  awk -v a="$a" -v b="$b" 'BEGIN { exit !(a < b) }' || fail "$method: fast ($a) not below slow ($b)"
done
[ -z "$(column "$out/retimed/results.csv" asp fast 1 retimed_from)" ] || fail "asp was retimed"

"$tetrad" report "$out/retimed" > /dev/null 2>&1 || fail "report: exit status $?"
grep -q "¹ retimed: trained once per seed" "$out/retimed/report.md" || fail "report.md does not mark the retimed rows"
grep -q "^| plain (baseline)¹ |" "$out/retimed/report.md" || fail "report.md: plain on fast not marked retimed"

log=$("$tetrad" run "$sweep" --out "$out/retimed" 2>&1) || { printf '%s\n' "$log"; fail "rerun: exit status $?"; }
printf '%s\n' "$log" | grep -q "(retiming): 4 runs (4 already done, 0 to run)" || fail "rerun retimed again"
echo "check_sweep_retime: OK"
