#!/bin/sh
# usage: expect_one_line.sh STATUS REGEX COMMAND...
# Passes when COMMAND exits with exactly STATUS, prints nothing on stdout and
# exactly one line on stderr, and that line matches the extended regular
# expression REGEX.
expected=$1
regex=$2
shift 2
err=$(mktemp)
out=$("$@" 2>"$err")
status=$?
message=$(cat "$err")
lines=$(wc -l < "$err")
rm -f "$err"
printf '%s\n' "$message"
fail() {
  echo "expect_one_line: FAIL: $*"
  exit 1
}
[ "$status" -eq "$expected" ] || fail "exit status $status, expected $expected"
[ -z "$out" ] || fail "stdout is not empty: $out"
[ "$lines" -eq 1 ] || fail "$lines lines on stderr, expected one"
printf '%s\n' "$message" | grep -Eq -- "$regex" || fail "stderr does not match: $regex"
echo "expect_one_line: PASS (exit status $status)"
