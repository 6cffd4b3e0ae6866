#!/bin/sh
# Parameter server (colocated shards) against ring all-reduce on real
# processes: the same BSP training run twice under mpirun, back to back, and
# the ratio of their iteration times (wall clock).
#   sh bench/ps_vs_ring_mpi.sh [NP] [MODEL] [ITERS] [TETRAD]
# Prints one line per architecture and the ratio ps / ring (< 1: faster).
set -eu
np=${1:-4}
model=${2:-cnn}
iters=${3:-60}
tetrad=${4:-build/tetrad}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
run() {
  mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train --cluster mpi --quiet \
    --model "$model" --data synthetic --train-samples $((np * 64 * iters)) --test-samples 64 \
    --max-iters "$iters" --arch "$1" --out "$out/$2" > /dev/null
  # train_time / iterations from summary.json, without a JSON tool.
  tr -d ' \n' < "$out/$2/summary.json" |
    sed -E 's/.*"iterations":([0-9]+).*"train_time":([0-9.e+-]+).*/\1 \2/' |
    awk '{ printf "%.6f\n", $2 / $1 }'
}
ring=$(run allreduce:ring ring)
ps=$(run ps:colocated ps)
ring2=$(run allreduce:ring ring2)
echo "model $model, $np ranks, $iters iterations, s/iteration (wall):"
echo "  ring     $ring (again: $ring2)"
echo "  ps:colocated $ps"
awk -v a="$ps" -v b="$ring" -v c="$ring2" \
  'BEGIN { printf "  ps/ring  %.3f (against the mean of both ring runs)\n", a / ((b + c) / 2) }'
rm -rf "$out"
