#!/bin/sh
# usage: scripts/codec_share.sh [TETRAD] > table.md
# The codec's share of a simulated iteration per compressor (docs/BENCHMARKS.md,
# "Codec cost"): timing-only runs of 8 workers, --compute flops:100, the
# survey's batch (32 per worker), fused buckets, for the mlp and the cnn at
# 1 and 10 Gb/s (50 us and 25 us), with the host-CPU and the V100 codec
# profiles and without (--codec-cost none). Prints one Markdown row per
# (model, network, compressor): time per iteration without and with each
# profile, and the codec share (codec time / time per iteration).
# A compressor a profile lacks prints "-" there (the run is refused).
tetrad=${1:-build/tetrad}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
per_iter() { # FOLDER -> "time_per_iter codec_per_iter" in ms
  python3 -c "import json,sys; s=json.load(open(sys.argv[1]+'/summary.json')); \
it=s['iterations']; print('%.3f %.3f' % (1e3*s['train_time']/it, 1e3*s.get('codec_time',0)))" "$1"
}
echo "| model | network | compressor | ms/iter, none | ms/iter, host-cpu | codec share, host-cpu | ms/iter, v100 | codec share, v100 |"
echo "|---|---|---|--:|--:|--:|--:|--:|"
for model in mlp cnn; do
  for net in "1GbE sim:1Gbps,50us" "10GbE sim:10Gbps,25us"; do
    label=${net%% *}
    cluster=${net#* }
    for c in none fp16 randomk:0.01,ef topk:0.01,ef gtopk:0.01 dgc:0.001 qsgd:16 terngrad \
      powersgd:2 sign efsign onebit; do
      momentum=""
      case $c in dgc*) momentum="--momentum 0" ;; esac
      row="| $model | $label | $c"
      base=""
      for codec in none profile:host-cpu profile:v100; do
        dir="$out/$model-$label-$c-${codec#profile:}"
        # shellcheck disable=SC2086
        if "$tetrad" train --timing-only --model "$model" --workers 8 --batch-size 32 \
          --compute flops:100 --cluster "$cluster" --compress "$c" $momentum \
          --codec-cost "$codec" --max-iters 20 --quiet --out "$dir" > /dev/null 2>&1; then
          set -- $(per_iter "$dir")
          if [ "$codec" = none ]; then
            row="$row | $1"
          else
            share=$(awk -v t="$1" -v k="$2" 'BEGIN { printf "%.0f%%", 100 * k / t }')
            row="$row | $1 | $share"
          fi
        else
          if [ "$codec" = none ]; then row="$row | -"; else row="$row | - | -"; fi
        fi
      done
      echo "$row |"
    done
  done
done
