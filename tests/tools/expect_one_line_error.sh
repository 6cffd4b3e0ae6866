#!/bin/sh
# usage: expect_one_line_error.sh REGEX COMMAND...
# Passes when COMMAND exits with status 2 and prints exactly one line (stdout
# and stderr together) that matches the extended regular expression REGEX.
regex=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 2 ]; then
  echo "expect_one_line_error: FAIL: exit status $status, expected 2"
  exit 1
fi
lines=$(printf '%s\n' "$output" | wc -l)
if [ "$lines" -ne 1 ]; then
  echo "expect_one_line_error: FAIL: $lines lines of output, expected 1"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "expect_one_line_error: FAIL: output does not match: $regex"
  exit 1
fi
echo "expect_one_line_error: PASS"
