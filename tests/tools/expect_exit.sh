#!/bin/sh
# usage: expect_exit.sh STATUS REGEX COMMAND...
# Passes when COMMAND exits with exactly STATUS and its output (stdout and
# stderr) matches the extended regular expression REGEX.
expected=$1
regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$expected" ]; then
  echo "expect_exit: FAIL: exit status $status, expected $expected"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "expect_exit: FAIL: output does not match: $regex"
  exit 1
fi
echo "expect_exit: PASS (exit status $status)"
