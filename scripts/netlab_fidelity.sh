#!/bin/sh
# netlab_fidelity: the measurements of docs/fidelity.md. Real all-reduce on a
# lab of shaped links (scripts/netlab.sh, root) against the simulator under
# lv08, cm02 and a calibrated profile, on 2 and 4 ranks.
#
# usage: scripts/netlab_fidelity.sh [-r RATE] [-b BURST] [-R ROUNDS] [-p PROFILE]
#                                   [-n "2 4"] [-s SIMLINK] OUTDIR
#   -r RATE     lab rate (default 200mbit); -b BURST tbf bucket (default min)
#   -R ROUNDS   real rounds per rank count (default 3; the median is reported
#               with the min and max)
#   -p PROFILE  network profile for the profile:FILE column
#               (default configs/net/netlab-200mbit.json)
#   -n RANKS    rank counts (default "2 4")
#   -s SIMLINK  the simulated star's links (default 200Mbps,50us)
# Writes OUTDIR/real-N-K.txt (round K), OUTDIR/sim-N-MODEL.txt and prints a
# table: ranks, algorithm, size, real median [min, max] in ms, and sim/real
# for every model. The machine should be otherwise idle: `uptime` is logged.
set -eu
here=$(dirname "$(readlink -f "$0")")
root=$(dirname "$here")
RATE=200mbit
BURST=min
ROUNDS=3
PROFILE=$root/configs/net/netlab-200mbit.json
RANKS="2 4"
SIMLINK=200Mbps,50us
TETRAD=${TETRAD:-$root/build/tetrad}
while getopts r:b:R:p:n:s: option; do
  case $option in
    r) RATE=$OPTARG ;;
    b) BURST=$OPTARG ;;
    R) ROUNDS=$OPTARG ;;
    p) PROFILE=$OPTARG ;;
    n) RANKS=$OPTARG ;;
    s) SIMLINK=$OPTARG ;;
    *) sed -n '6,17p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || { sed -n '6,17p' "$0" >&2; exit 2; }
out=$1
mkdir -p "$out"
lab="$here/netlab.sh -k 7"
BENCH="bench collectives --algorithms ring,rd,rabenseifner --min-bytes 4K --max-bytes 16M \
  --step-factor 4"

for n in $RANKS; do
  $lab -n "$n" -r "$RATE" -b "$BURST" up
  k=1
  while [ "$k" -le "$ROUNDS" ]; do
    echo "# round $k, $n ranks, $(uptime)" | tee -a "$out/load.txt"
    # shellcheck disable=SC2086
    $lab mpirun -np "$n" "$TETRAD" $BENCH --cluster mpi --iters 10 --warmup 2 \
      >"$out/real-$n-$k.txt"
    k=$((k + 1))
  done
  $lab down
  for model in lv08 cm02 "profile:$PROFILE"; do
    name=${model%%:*}
    # shellcheck disable=SC2086
    "$TETRAD" $BENCH --cluster "sim:${n}x$SIMLINK" --net-model "$model" >"$out/sim-$n-$name.txt"
  done
done

# One table from the files: times in microseconds, column 4 of the bench rows.
for n in $RANKS; do
  for f in "$out"/real-"$n"-*.txt; do
    awk -v n="$n" '$1 ~ /^[0-9]+$/ { print n, $3, $1, "real", $4 }' "$f"
  done
  for name in lv08 cm02 profile; do
    awk -v n="$n" -v m="$name" '$1 ~ /^[0-9]+$/ { print n, $3, $1, m, $4 }' \
      "$out/sim-$n-$name.txt"
  done
done | sort -k1,1n -k2,2 -k3,3n | awk '
  function flush() {
    if (key == "") return
    c = split(real, r, " "); for (i = 1; i <= c; i++) for (j = i + 1; j <= c; j++)
      if (r[j] < r[i]) { t = r[i]; r[i] = r[j]; r[j] = t }
    med = (c % 2) ? r[(c + 1) / 2] : (r[c / 2] + r[c / 2 + 1]) / 2
    printf "%s %10.3f [%8.3f, %8.3f] %7.2f %7.2f %7.2f\n", key, med / 1000, r[1] / 1000, r[c] / 1000,
      sim["lv08"] / med, sim["cm02"] / med, sim["profile"] / med
  }
  BEGIN { print "ranks algorithm bytes real_ms [min, max] lv08/real cm02/real profile/real" }
  { k = $1 " " $2 " " $3; if (k != key) { flush(); key = k; real = "" }
    if ($4 == "real") real = real " " $5; else sim[$4] = $5 }
  END { flush() }' | column -t | tee "$out/table.txt"
