#!/bin/sh
# tetrad under mpirun against PyTorch DDP (gloo), side by side in one run:
# the same model, Fashion-MNIST, batch per rank, optimizer and one LibTorch
# thread per rank; each tetrad schedule and DDP alternate for REPEATS rounds
# and the median samples/s of each is printed with its ratio to DDP's.
#   sh bench/ddp_compare.sh [NP] [MODEL] [ITERS] [REPEATS] [TETRAD]
# Optional: needs python3-torch (apt-get install python3-torch; PYTHON names
# another interpreter than /usr/bin/python3); not part of `make test`.
set -eu
np=${1:-2}
model=${2:-cnn}
iters=${3:-200}
repeats=${4:-3}
tetrad=${5:-build/tetrad}
here=$(dirname "$0")
python=${PYTHON:-/usr/bin/python3}  # Debian's python3-torch is for Debian's python3
"$python" -c 'import torch' 2> /dev/null ||
  { echo "ddp_compare: python3-torch is missing (apt-get install python3-torch)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
scheds="none wfbp fusion:25MiB mgwfbp"
tetrad_run() {  # $1 sched, $2 folder: prints samples/s from summary.json
  mpirun -np "$np" --oversubscribe --bind-to none "$tetrad" train --cluster mpi --quiet \
    --model "$model" --max-iters "$iters" --eval-every 0 --threads 1 --sched "$1" \
    --timeline off --out "$out/$2" > "$out/$2.log" 2>&1 ||
    { cat "$out/$2.log" >&2; exit 1; }
  tr -d ' \n' < "$out/$2/summary.json" |
    sed -E 's/.*"throughput_samples_per_s":([0-9.e+-]+).*/\1/'
  echo  # summary.json's text had its newlines removed
}
ddp_run() {
  "$python" "$here/ddp_compare.py" --model "$model" --ranks "$np" --iters "$iters" --threads 1 |
    sed -E 's/.*samples_per_s=([0-9.]+).*/\1/'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
round=1
while [ "$round" -le "$repeats" ]; do
  ddp_run >> "$out/ddp.txt"
  for s in $scheds; do
    tetrad_run "$s" "r$round-$(echo "$s" | tr ':' '_')" >> "$out/$(echo "$s" | tr ':' '_').txt"
  done
  round=$((round + 1))
done
ddp=$(median < "$out/ddp.txt")
echo "model $model, $np ranks, batch 64 per rank, $iters iterations, 1 thread per rank;"
echo "median of $repeats alternating rounds, samples/s (wall):"
printf "  %-28s %10.1f  1.000\n" "PyTorch DDP (gloo)" "$ddp"
for s in $scheds; do
  v=$(median < "$out/$(echo "$s" | tr ':' '_').txt")
  printf "  %-28s %10.1f  %.3f\n" "tetrad --sched $s" "$v" "$(awk -v a="$v" -v b="$ddp" 'BEGIN { print a / b }')"
done
