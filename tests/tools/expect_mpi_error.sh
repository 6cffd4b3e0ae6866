#!/bin/sh
# usage: expect_mpi_error.sh REGEX MPIRUN...
# Bad input under mpirun: every rank prints its one "tetrad: error: ..." line
# and mpirun adds its own abort notice, so the output has several lines.
# Passes when the job exits with status 2 (MPI_Abort's code, passed on by
# mpirun) and one of the lines matches the extended regular expression REGEX.
regex=$1
shift
output=$("$@" 2>&1)
status=$?
printf '%s\n' "$output"
if [ "$status" -ne 2 ]; then
  echo "expect_mpi_error: FAIL: exit status $status, expected 2"
  exit 1
fi
if ! printf '%s\n' "$output" | grep -Eq -- "tetrad: error: .*$regex"; then
  echo "expect_mpi_error: FAIL: no 'tetrad: error:' line matches: $regex"
  exit 1
fi
echo "expect_mpi_error: PASS"
