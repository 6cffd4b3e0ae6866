#!/bin/sh
# usage: advise_vs_sim.sh TETRAD NET_MODEL WORKERS CLUSTER [MODEL [COMPRESS [ARCH]]]
# The advisor and the simulator agree within 5% on the time per iteration of
# bsp ARCH COMPRESS (default allreduce:ring none; MODEL default mlp; fixed
# compute) when both use NET_MODEL and the host-CPU codec profile
# (--codec-cost profile:host-cpu: what a timing-only run charges by default).
# NET_MODEL "default": neither is given --net-model, and the run must record
# cm02, the default. Both keep the non-finite guard (train's default
# --on-nonfinite stop), which rides on the exchange where it can and is
# priced as its own round elsewhere.
set -eu
tetrad=$1
net=$2
workers=$3
cluster=$4
model=${5:-mlp}
compress=${6:-none}
arch=${7:-allreduce:ring}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$net" = default ]; then
  flag=""
  net=cm02
else
  flag="--net-model $net"
fi
# shellcheck disable=SC2086
"$tetrad" advise --explain --model "$model" --workers "$workers" --cluster "$cluster" --compute 10ms \
  $flag --codec-cost profile:host-cpu >"$dir/advise.txt"
# The time per iteration ("= T ms/iter × M iterations"), not the time to target.
predicted=$(awk -v a="$arch" -v c="$compress" '$4 == "bsp" && $5 == a && $6 == c {
  for (i = 1; i < NF; ++i) if ($(i + 1) == "ms/iter") { print $i; exit } }' "$dir/advise.txt")
[ -n "$predicted" ] || { echo "advise_vs_sim: FAIL: no bsp $arch $compress row"; exit 1; }
# shellcheck disable=SC2086
"$tetrad" train --model "$model" --data synthetic --timing-only --workers "$workers" \
  --cluster "$cluster" $flag --compute fixed:10ms --max-iters 40 --quiet \
  --arch "$arch" --compress "$compress" --codec-cost profile:host-cpu \
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
