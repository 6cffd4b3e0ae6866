#!/bin/sh
# usage: advise_vs_sim.sh TETRAD NET_MODEL WORKERS CLUSTER [MODEL]
# The advisor and the simulator agree within 5% on the time per iteration of
# bsp allreduce:ring none (MODEL, default mlp; fixed compute) when both use
# NET_MODEL. NET_MODEL "default": neither is given --net-model, and the run
# must record cm02, the default. Both keep the non-finite guard's
# per-iteration agreement (train's default --on-nonfinite stop; ⌈log2 p⌉
# latencies: 2 ms per iteration at 1 ms), which the advisor prices.
set -eu
tetrad=$1
net=$2
workers=$3
cluster=$4
model=${5:-mlp}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$net" = default ]; then
  flag=""
  net=cm02
else
  flag="--net-model $net"
fi
# shellcheck disable=SC2086
"$tetrad" advise --model "$model" --workers "$workers" --cluster "$cluster" --compute 10ms \
  $flag --no-measure >"$dir/advise.txt"
predicted=$(awk '$4 == "bsp" && $5 == "allreduce:ring" && $6 == "none" { print $2; exit }' \
  "$dir/advise.txt")
# shellcheck disable=SC2086
"$tetrad" train --model "$model" --data synthetic --timing-only --workers "$workers" \
  --cluster "$cluster" $flag --compute fixed:10ms --max-iters 40 --quiet \
  --timeline off --out "$dir/run" >"$dir/train.txt"
grep -q "\"net_model\": \"$net\"" "$dir/run/config.json" ||
  { echo "advise_vs_sim: FAIL: config.json does not record net_model $net"; exit 1; }
value() { sed -n "s/^ *\"$1\": *\([0-9.eE+-]*\),*$/\1/p" "$dir/run/summary.json" | head -n 1; }
simulated=$(awk -v t="$(value train_time)" -v n="$(value iterations)" 'BEGIN { print t / n }')
echo "advise_vs_sim: $net: predicted $predicted ms, simulated $simulated s per iteration"
awk -v p="$predicted" -v s="$simulated" 'BEGIN {
  r = (p / 1000) / s; printf "advise_vs_sim: ratio %.4f\n", r;
  exit (r > 0.95 && r < 1.05) ? 0 : 1 }' ||
  { echo "advise_vs_sim: FAIL: not within 5%"; exit 1; }
echo "advise_vs_sim: PASS"
