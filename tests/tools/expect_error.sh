#!/bin/sh
# usage: expect_error.sh REGEX COMMAND...
# Passes when COMMAND exits non-zero and its output (stdout and stderr)
# matches the extended regular expression REGEX.
regex=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -eq 0 ]; then
  echo "expect_error: FAIL: the command succeeded, an error was expected"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "expect_error: FAIL: output does not match: $regex"
  exit 1
fi
echo "expect_error: PASS (exit status $status)"
