#!/bin/sh
# usage: bench/analytic_scale.sh [TETRAD] [ROUNDS]
# Wall seconds and peak memory of timing-only resnet20 training (100
# iterations, fixed 50 ms compute, CM02 without cross traffic) with the
# analytic engine and with SimGrid's message-level engine, alternating the
# engines in each round. Prints one line per run: engine workers arch sched
# iterations wall_s user_s peak_KB train_time.
tetrad=${1:-build/tetrad}
rounds=${2:-3}
out=$(mktemp -d)
run() {  # ENGINE WORKERS CLUSTER ARCH ITERS [SCHED]
  /usr/bin/time -f "%e %U %M" -o "$out/time" "$tetrad" train --timing-only --quiet \
    --model resnet20 --data cifar10 --workers "$2" --cluster "$3" --arch "$4" --sched "${6:-none}" \
    --compute fixed:50ms --epochs 1000 --max-iters "$5" --net-model cm02 --engine "$1" \
    --out "$out/run" > /dev/null 2>&1 || { echo "$1 $2 $4: failed"; return; }
  t=$(tr -d ' \n' < "$out/run/summary.json" | grep -o '"train_time":[^,]*' | cut -d: -f2)
  echo "$1 $2 $4 ${6:-none} $5 $(cat "$out/time") $t"
  rm -rf "$out/run"
}
for round in $(seq "$rounds"); do
  echo "# round $round"
  run simgrid 128 sim:10Gbps,25us allreduce:ring 100
  run analytic 128 sim:10Gbps,25us allreduce:ring 100
  run analytic 128 sim:10Gbps,25us allreduce:ring 100 wfbp
  run analytic 1024 sim:10Gbps,25us allreduce:ring 100
  run analytic 1024 sim:10Gbps,25us allreduce:rabenseifner 100
  run analytic 1024 sim:128x8:100Gbps,2us:10Gbps,25us allreduce:hierarchical 100
  run analytic 1024 sim:10Gbps,25us gossip:exp 100
done
echo "# once"
run simgrid 1024 sim:10Gbps,25us allreduce:ring 3
run analytic 10000 sim:10Gbps,25us allreduce:rabenseifner 100
run analytic 10000 sim:1250x8:100Gbps,2us:10Gbps,25us allreduce:hierarchical 100
rm -rf "$out"
