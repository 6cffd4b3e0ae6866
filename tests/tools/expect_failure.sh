#!/bin/sh
# usage: expect_failure.sh MAX_SECONDS REGEX COMMAND...
# Passes when COMMAND exits non-zero within MAX_SECONDS and its output
# (stdout and stderr) matches the extended regular expression REGEX.
max=$1
regex=$2
shift 2
start=$(date +%s.%N)
output=$("$@" 2>&1)
status=$?
end=$(date +%s.%N)
printf '%s\n' "$output"
elapsed=$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }')
echo "expect_failure: exit status $status after $elapsed s (limit $max s)"
if [ "$status" -eq 0 ]; then
  echo "expect_failure: FAIL: the command succeeded, a failure was expected"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq "$regex"; then
  echo "expect_failure: FAIL: output does not match: $regex"
  exit 1
fi
if awk -v e="$elapsed" -v m="$max" 'BEGIN { exit !(e > m) }'; then
  echo "expect_failure: FAIL: took $elapsed s, more than $max s"
  exit 1
fi
echo "expect_failure: PASS"
