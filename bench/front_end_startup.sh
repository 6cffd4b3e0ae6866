#!/bin/sh
# usage: bench/front_end_startup.sh [ROUNDS] [BUILD_DIR]
# Wall seconds of whole `tetrad` commands that compute no gradient, run by
# the LibTorch-free front end (BUILD_DIR/tetrad) and by tetrad-torch (the
# same command line, LibTorch loaded): medians of ROUNDS alternating rounds
# (default 5) with [min–max]. The outputs are checked equal (wall-clock
# fields aside), so both programs did the same work; the advisor's measures
# its codecs on every run, so there only the ranking's methods are compared.
set -eu
rounds=${1:-5}
build=${2:-build}
front=$build/tetrad
torch=$build/tetrad-torch
[ -x "$front" ] && [ -x "$torch" ] || { echo "build $front and $torch first" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

now() { date +%s.%N; }
# seconds PROGRAM ARGS...: wall seconds of one run, output in $work/out
seconds() {
  start=$(now)
  "$@" > "$work/out" 2>&1 || true
  end=$(now)
  echo "$end - $start" | bc -l
}
stats() { # median [min–max] of the numbers on stdin
  sort -g | awk '{v[NR] = $1} END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3f [%.3f–%.3f]", m, v[1], v[NR] }'
}

# filter all|methods: the output of the last run to compare
filter() {
  if [ "$1" = methods ]; then
    awk '$1 ~ /^[0-9]+$/ {print $4, $5, $6}' "$work/out"
  else
    grep -v -e wall -e '"folder"' -e 'run folder' -e '^Usage:' "$work/out" || true
  fi
}

printf '| command | front end s | tetrad-torch s | ratio |\n|---|--:|--:|--:|\n'
while IFS='|' read -r label keep args; do
  [ -n "$label" ] || continue
  : > "$work/front"
  : > "$work/torch"
  for round in $(seq "$rounds"); do
    # shellcheck disable=SC2086
    seconds "$front" $args | tee -a "$work/front" > /dev/null
    filter "$keep" > "$work/front.out"
    # shellcheck disable=SC2086
    seconds "$torch" $args | tee -a "$work/torch" > /dev/null
    filter "$keep" > "$work/torch.out"
    cmp -s "$work/front.out" "$work/torch.out" ||
      { diff "$work/front.out" "$work/torch.out" | head -5; echo "$label: outputs differ" >&2; exit 1; }
  done
  f=$(stats < "$work/front")
  t=$(stats < "$work/torch")
  ratio=$(echo "${t%% *} / ${f%% *}" | bc -l)
  printf '| %s | %s | %s | %.1f× |\n' "$label" "$f" "$t" "$ratio"
done <<EOF2
tetrad --help|all|--help
refused (train --workers 0)|all|train --workers 0 --quiet
advise (cnn, 8 workers, 1 Gb/s)|methods|advise --model cnn --workers 8 --cluster sim:1Gbps,50us
timing-only (resnet20, 64 workers, 20 iterations)|all|train --timing-only --model resnet20 --data cifar10 --workers 64 --compute flops:100 --max-iters 20 --quiet --cluster sim:10Gbps,25us --out $work/run
EOF2
