#!/bin/sh
# Fused buckets against layer-wise ones: simulated milliseconds per iteration
# of BSP ring all-reduce for each compressor, on 8 simulated workers, with the
# default --bucket-size auto (25 MiB fused, every compressor) and the
# layer-wise ablation --bucket-size 0 (one bucket per tensor), and each
# method's ratio to `none` and to `fp16` in the same table. Compute is charged
# by --compute flops:100, so simulated time is deterministic and the
# differences are communication: encode/decode CPU time is not charged in
# simulated time (see `tetrad bench compressors` for its cost).
#   sh bench/fused_buckets.sh [MODELS] [NETWORKS] [METHODS] [ITERS] [TETRAD] [FLAGS]
# e.g. sh bench/fused_buckets.sh "mlp cnn" "1Gbps,50us 10Gbps,25us"
# FLAGS are passed to every run, e.g. "--net-model cm02"
# Not part of `make test`.
set -eu
models=${1:-mlp cnn}
networks=${2:-1Gbps,50us 10Gbps,25us}
methods=${3:-none fp16 qsgd:16 topk:0.01,ef powersgd:2 powersgd:2:batched sign}
iters=${4:-30}
tetrad=${5:-build/tetrad}
flags=${6:-}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
field() {  # $1 summary.json, $2 numeric field
  tr -d ' \n' < "$1" | sed -E "s/.*\"$2\":([0-9.e+-]+).*/\\1/"
}
ms_per_iter() {  # $1 model $2 network $3 compress $4 bucket size
  dir="$out/run"
  rm -rf "$dir"
  "$tetrad" train --quiet --model "$1" --workers 8 --cluster "sim:$2" --compress "$3" \
    --bucket-size "$4" --compute flops:100 --batch-size 32 --max-iters "$iters" \
    --eval-every 0 --timeline off $flags --out "$dir" > "$out/log" 2>&1 || { cat "$out/log" >&2; exit 1; }
  awk -v t="$(field "$dir/summary.json" train_time)" -v n="$(field "$dir/summary.json" iterations)" \
    'BEGIN { printf "%.2f", 1000 * t / n }'
}
printf '| model | network | method | fused ms/iter | vs none | vs fp16 | layer-wise ms/iter | fused/layer-wise |\n'
printf '|---|---|---|--:|--:|--:|--:|--:|\n'
for model in $models; do
  for net in $networks; do
    none=$(ms_per_iter "$model" "$net" none auto)
    fp16=$(ms_per_iter "$model" "$net" fp16 auto)
    for method in $methods; do
      case $method in
        none) fused=$none ;;
        fp16) fused=$fp16 ;;
        *) fused=$(ms_per_iter "$model" "$net" "$method" auto) ;;
      esac
      layer=$(ms_per_iter "$model" "$net" "$method" 0)
      awk -v m="$model" -v n="$net" -v c="$method" -v f="$fused" -v b="$none" -v h="$fp16" \
        -v l="$layer" 'BEGIN { printf "| %s | %s | %s | %.2f | %.2f | %.2f | %.2f | %.2f |\n",
          m, n, c, f, f / b, f / h, l, f / l }'
    done
  done
done
