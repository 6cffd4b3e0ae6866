#!/bin/sh
# usage: expect_exit.sh STATUS REGEX COMMAND...
# Passes when COMMAND exits with STATUS and a line of its output (stdout and
# stderr) matches the extended regular expression REGEX.
want=$1
regex=$2
shift 2
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne "$want" ]; then
  echo "expect_exit: FAIL: exit status $status, expected $want"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "$regex"; then
  echo "expect_exit: FAIL: no line matches: $regex"
  exit 1
fi
echo "expect_exit: PASS (exit status $status)"
