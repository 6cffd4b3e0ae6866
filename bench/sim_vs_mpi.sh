#!/bin/sh
# Simulated training on every core against the same job as real MPI
# processes, side by side: the same model, Fashion-MNIST, batch per rank,
# iterations and one LibTorch thread per rank. Each round runs the simulated
# job with one thread (--sim-threads 1), with every usable core
# (--sim-threads 0) and under mpirun -np NP; the medians of samples per
# wall-clock second (workers x batch x iterations / the run's wall_time) are
# printed with their ratios to MPI's. The simulated runs charge flops:50 (a
# charge known before each pass, which lets the passes run in parallel:
# docs/training.md#parallel-simulation-sim-threads).
#   sh bench/sim_vs_mpi.sh [NP] [MODEL] [ITERS] [REPEATS] [TETRAD]
# Not part of `make test`.
set -eu
np=${1:-2}
model=${2:-cnn}
iters=${3:-150}
repeats=${4:-3}
tetrad=${5:-build/tetrad}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
batch=32
job="--quiet --model $model --batch-size $batch --max-iters $iters --eval-every 0 --test-samples 1000
  --timeline off --on-nonfinite stop"
wall() {  # the run's wall_time from summary.json
  tr -d ' \n' < "$1/summary.json" | sed -E 's/.*"wall_time":([0-9.e+-]+).*/\1/'
}
run() {  # $1 label, then the command: appends samples per wall second to $out/$1.txt
  label=$1
  shift
  "$@" --out "$out/$label" > "$out/$label.log" 2>&1 || { cat "$out/$label.log" >&2; exit 1; }
  awk -v w="$(wall "$out/$label")" -v n=$((np * batch * iters)) 'BEGIN { print n / w }' \
    >> "$out/$label.txt"
  rm -rf "${out:?}/$label"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
round=1
while [ "$round" -le "$repeats" ]; do
  # shellcheck disable=SC2086
  run mpi mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train $job --cluster mpi \
    --threads 1
  # shellcheck disable=SC2086
  run sim1 "$tetrad" train $job --cluster sim:10Gbps,25us --workers "$np" --compute flops:50 \
    --sim-threads 1
  # shellcheck disable=SC2086
  run simall "$tetrad" train $job --cluster sim:10Gbps,25us --workers "$np" --compute flops:50 \
    --sim-threads 0
  round=$((round + 1))
done
mpi=$(median < "$out/mpi.txt")
printf '%s, %s ranks, %s iterations, batch %s, %s rounds (medians, samples per wall second)\n' \
  "$model" "$np" "$iters" "$batch" "$repeats"
printf '  mpirun -np %-3s       %8.1f\n' "$np" "$mpi"
for label in sim1 simall; do
  value=$(median < "$out/$label.txt")
  awk -v l="$label" -v v="$value" -v m="$mpi" 'BEGIN {
    name = (l == "sim1") ? "sim, 1 thread" : "sim, every core"
    printf "  %-18s %8.1f  %.2fx MPI\n", name, v, v / m }'
done
