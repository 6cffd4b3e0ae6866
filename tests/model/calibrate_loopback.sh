#!/bin/sh
# usage: calibrate_loopback.sh TETRAD MPIRUN [MPIRUN ARGS...]
# `tetrad calibrate` under `mpirun -np 2` on this machine (no lab needed)
# writes a profile with all three series, and the simulator loads it: a
# simulated ring on the profile's nominal link runs and names the model.
set -eu
tetrad=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$@" -np 2 "$tetrad" calibrate --cluster mpi --link 1Gbps,20us --out "$dir/net.json" \
  --min-bytes 8 --max-bytes 256K --step-factor 4 --repetitions 3 --warmup 1 >"$dir/table.txt"
cat "$dir/table.txt"
for series in pingpong exchange ring; do
  grep -q "\"series\": \"$series\"" "$dir/net.json" ||
    { echo "calibrate_loopback: FAIL: no $series points in the profile"; exit 1; }
done
grep -q '"network/latency-factor": "0:' "$dir/net.json" ||
  { echo "calibrate_loopback: FAIL: no latency factors"; exit 1; }
grep -Eq '^exchange +2 +262144 ' "$dir/table.txt" ||
  { echo "calibrate_loopback: FAIL: no table row for exchange at 256 KiB"; exit 1; }
"$tetrad" bench collectives --cluster sim:2x1Gbps,20us --net-model "profile:$dir/net.json" \
  --algorithms ring --min-bytes 4K --max-bytes 64K --step-factor 4 >"$dir/bench.txt"
cat "$dir/bench.txt"
grep -q "^# network model: profile:$dir/net.json" "$dir/bench.txt" ||
  { echo "calibrate_loopback: FAIL: the bench does not name the profile"; exit 1; }
echo "calibrate_loopback: PASS"
