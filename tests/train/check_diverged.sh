#!/bin/sh
# usage: check_diverged.sh RUN_DIR REGEX COMMAND...
# Runs a `tetrad train` COMMAND whose run folder is RUN_DIR (removed first)
# and passes when it exits non-zero, its output matches REGEX (extended), the
# error is one line per rank (no other "error" lines), and RUN_DIR/summary.json
# records "status": "diverged".
dir=$1
regex=$2
shift 2
rm -rf "$dir"
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
fail() { echo "check_diverged: FAIL: $1"; exit 1; }
[ "$status" -ne 0 ] || fail "the command succeeded, a diverged run was expected"
printf '%s\n' "$output" | grep -Eq -- "$regex" || fail "output does not match: $regex"
others=$(printf '%s\n' "$output" | grep -i "error" | grep -Ev -- "$regex" || true)
[ -z "$others" ] || fail "other error lines: $others"
[ -f "$dir/summary.json" ] || fail "no $dir/summary.json"
grep -q '"status": "diverged"' "$dir/summary.json" || fail "summary.json has no status diverged"
echo "check_diverged: PASS (exit status $status)"
