#!/bin/sh
# Fused-bucket compression on real processes: milliseconds per iteration
# (train_time / iterations from summary.json: wall clock, evaluation
# excluded) of BSP ring all-reduce under `mpirun -np NP` on this machine, for
# each compressor with the default --bucket-size auto, in ROUNDS alternating
# rounds; prints each method's median with its range and the ratios of the
# medians to `none` and to `fp16`. On shared memory the exchange is cheap, so
# the ratios show what encode/decode cost against computation.
#   sh bench/fused_buckets_mpi.sh [MODEL] [METHODS] [ITERS] [ROUNDS] [NP] [TETRAD]
# Not part of `make test`.
set -eu
model=${1:-mlp}
methods=${2:-none fp16 qsgd:16 topk:0.01,ef powersgd:2 sign}
iters=${3:-300}
rounds=${4:-3}
np=${5:-2}
tetrad=${6:-build/tetrad}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
field() {  # $1 summary.json, $2 numeric field
  tr -d ' \n' < "$1" | sed -E "s/.*\"$2\":([0-9.e+-]+).*/\\1/"
}
round=1
while [ "$round" -le "$rounds" ]; do
  for method in $methods; do
    dir="$out/run"
    rm -rf "$dir"
    mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train --quiet --cluster mpi \
      --model "$model" --compress "$method" --batch-size 32 --max-iters "$iters" \
      --eval-every 0 --test-samples 1000 --timeline off --out "$dir" > "$out/log" 2>&1 ||
      { cat "$out/log" >&2; exit 1; }
    awk -v t="$(field "$dir/summary.json" train_time)" \
      -v n="$(field "$dir/summary.json" iterations)" 'BEGIN { printf "%.3f\n", 1000 * t / n }' \
      >> "$out/$(echo "$method" | tr ':,' '__').txt"
  done
  round=$((round + 1))
done
median() { sort -g "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
none=$(median "$out/none.txt")
fp16=$(median "$out/fp16.txt")
printf '| %s, mpirun -np %s | ms/iter median (range) | vs none | vs fp16 |\n|---|--:|--:|--:|\n' \
  "$model" "$np"
for method in $methods; do
  file="$out/$(echo "$method" | tr ':,' '__').txt"
  m=$(median "$file")
  range=$(sort -g "$file" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }')
  awk -v c="$method" -v m="$m" -v r="$range" -v b="$none" -v h="$fp16" \
    'BEGIN { printf "| %s | %.3f (%s) | %.2f | %.2f |\n", c, m, r, m / b, m / h }'
done
