#!/bin/sh
# usage: expect_output.sh REGEX COUNT COMMAND...
# Passes when COMMAND exits with status 0 and exactly COUNT lines of its
# output (stdout and stderr) match the extended regular expression REGEX.
regex=$1
count=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 0 ]; then
  echo "expect_output: FAIL: exit status $status"
  exit 1
fi
found=$(printf '%s\n' "$output" | grep -Ec -- "$regex")
if [ "$found" -ne "$count" ]; then
  echo "expect_output: FAIL: $found lines match '$regex', expected $count"
  exit 1
fi
echo "expect_output: PASS"
