#!/bin/sh
# Simulated training on every core against the same job as real MPI
# processes, side by side: the same model, Fashion-MNIST, batch per rank,
# iterations and one LibTorch thread per rank. Each round runs the simulated
# job with one thread (--sim-threads 1), with every usable core
# (--sim-threads 0) and under mpirun -np NP; the medians of samples per
# wall-clock second (workers x batch x iterations / the run's wall_time) are
# printed with their ratios to MPI's. The simulated runs charge COMPUTE
# (default flops:50; `measured` charges each pass its measured time: inline
# it is timed by the wall clock, on the pool by its thread's CPU clock, and
# the script then also prints the median compute seconds charged per
# iteration: docs/training.md#parallel-simulation-sim-threads).
#   [COMPUTE=measured] sh bench/sim_vs_mpi.sh [NP] [MODEL] [ITERS] [REPEATS] [TETRAD]
# Not part of `make test`.
set -eu
np=${1:-2}
model=${2:-cnn}
iters=${3:-150}
repeats=${4:-3}
tetrad=${5:-build/tetrad}
compute=${COMPUTE:-flops:50}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
batch=32
job="--quiet --model $model --batch-size $batch --max-iters $iters --eval-every 0 --test-samples 1000
  --timeline off --on-nonfinite stop"
wall() {  # the run's wall_time from summary.json
  tr -d ' \n' < "$1/summary.json" | sed -E 's/.*"wall_time":([0-9.e+-]+).*/\1/'
}
charged() {  # compute seconds charged to rank 0 per iteration (summary.json)
  tr -d ' \n' < "$1/summary.json" |
    sed -E 's/.*"compute_time_per_rank":\[([0-9.e+-]+).*/\1/' |
    awk -v n="$iters" '{ print $1 / n }'
}
run() {  # $1 label, then the command: appends samples per wall second to $out/$1.txt
  label=$1
  shift
  "$@" --out "$out/$label" > "$out/$label.log" 2>&1 || { cat "$out/$label.log" >&2; exit 1; }
  awk -v w="$(wall "$out/$label")" -v n=$((np * batch * iters)) 'BEGIN { print n / w }' \
    >> "$out/$label.txt"
  charged "$out/$label" >> "$out/$label.charged"
  rm -rf "${out:?}/$label"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
round=1
while [ "$round" -le "$repeats" ]; do
  # shellcheck disable=SC2086
  run mpi mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train $job --cluster mpi \
    --threads 1
  # shellcheck disable=SC2086
  run sim1 "$tetrad" train $job --cluster sim:10Gbps,25us --workers "$np" --compute "$compute" \
    --sim-threads 1
  # shellcheck disable=SC2086
  run simall "$tetrad" train $job --cluster sim:10Gbps,25us --workers "$np" --compute "$compute" \
    --sim-threads 0
  round=$((round + 1))
done
mpi=$(median < "$out/mpi.txt")
spread() { sort -g | awk '{ v[NR] = $1 } END { printf "%.4g-%.4g", v[1], v[NR] }'; }
printf '%s, %s ranks, %s iterations, batch %s, --compute %s, %s rounds (medians [min-max])\n' \
  "$model" "$np" "$iters" "$batch" "$compute" "$repeats"
printf '  %-18s %8s  %-9s %s\n' "" "samples/s" "vs MPI" "compute s/iter charged (rank 0)"
for label in mpi sim1 simall; do
  value=$(median < "$out/$label.txt")
  awk -v l="$label" -v v="$value" -v m="$mpi" -v r="$(spread < "$out/$label.txt")" \
    -v c="$(median < "$out/$label.charged")" -v cr="$(spread < "$out/$label.charged")" 'BEGIN {
    name = (l == "mpi") ? "mpirun" : (l == "sim1") ? "sim, 1 thread" : "sim, every core"
    printf "  %-18s %8.1f  %.2fx [%s]  %.5f [%s]\n", name, v, v / m, r, c, cr }'
done
