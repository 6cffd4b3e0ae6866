#!/bin/sh
# usage: expect_error.sh REGEX COMMAND...
# The command-line contract for bad input: COMMAND exits with status 2 and
# prints exactly one line on stderr ("tetrad: error: ..."), which matches the
# extended regular expression REGEX. Anything on stdout is ignored (a run
# may print progress before it finds the problem); a crash, another status
# or a second line of error output fails.
regex=$1
shift
errors=$(mktemp)
"$@" > /dev/null 2> "$errors"
status=$?
output=$(cat "$errors")
rm -f "$errors"
printf '%s\n' "$output"
if [ "$status" -ne 2 ]; then
  echo "expect_error: FAIL: exit status $status, expected 2"
  exit 1
fi
lines=$(printf '%s\n' "$output" | wc -l)
if [ "$lines" -ne 1 ]; then
  echo "expect_error: FAIL: $lines lines on stderr, expected 1"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "expect_error: FAIL: stderr does not match: $regex"
  exit 1
fi
echo "expect_error: PASS"
