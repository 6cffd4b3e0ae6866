#!/bin/sh
# Overhead of --check-collectives: the same BSP training run with and without
# it, simulated (SimGrid, fixed compute so only communication differs) and
# under mpirun (wall clock), and the ratio of their iteration times.
#   sh bench/check_collectives_overhead.sh [MODEL] [NP] [ITERS] [TETRAD]
# Prints s/iteration for each run and the ratio checked / plain.
set -eu
model=${1:-mlp}
np=${2:-4}
iters=${3:-40}
tetrad=${4:-build/tetrad}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
per_iteration() {
  # train_time / iterations from summary.json, without a JSON tool.
  tr -d ' \n' < "$1/summary.json" |
    sed -E 's/.*"iterations":([0-9]+).*"train_time":([0-9.e+-]+).*/\1 \2/' |
    awk '{ printf "%.7f\n", $2 / $1 }'
}
common="--quiet --model $model --data synthetic --train-samples $((np * 64 * iters)) \
  --test-samples 64 --max-iters $iters"
sim() {
  name=$1
  shift
  "$tetrad" train $common --workers "$np" --cluster sim:10Gbps,25us --compute fixed:20ms \
    --sim-cfg network/model:CM02 --sim-cfg network/crosstraffic:0 --out "$out/$name" "$@" \
    > /dev/null
}
mpi() {
  name=$1
  shift
  mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train --cluster mpi $common \
    --out "$out/$name" "$@" > /dev/null
}
sim sim_plain
sim sim_checked --check-collectives
mpi mpi_plain
mpi mpi_checked --check-collectives
mpi mpi_plain2
mpi mpi_checked2 --check-collectives
sp=$(per_iteration "$out/sim_plain"); sc=$(per_iteration "$out/sim_checked")
mp=$(per_iteration "$out/mpi_plain"); mc=$(per_iteration "$out/mpi_checked")
mp2=$(per_iteration "$out/mpi_plain2"); mc2=$(per_iteration "$out/mpi_checked2")
echo "model $model, $np workers, $iters iterations, s/iteration:"
awk -v p="$sp" -v c="$sc" 'BEGIN { printf "  sim  plain %.6f  checked %.6f  ratio %.4f  (+%.1f us)\n", p, c, c / p, (c - p) * 1e6 }'
awk -v p="$mp" -v c="$mc" -v p2="$mp2" -v c2="$mc2" \
  'BEGIN { printf "  mpi  plain %.6f %.6f  checked %.6f %.6f  ratio %.4f (means)\n", p, p2, c, c2, (c + c2) / (p + p2) }'
rm -rf "$out"
