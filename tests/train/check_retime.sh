#!/bin/sh
# usage: check_retime.sh TETRAD OUT_DIR TOOLS_DIR
# `tetrad retime` (train/timing/retime.h): for Top-k with error feedback on an
# all-reduce ring and for D-PSGD on a ring (whose consensus metrics and
# evaluations of the average model send messages too), a run trained on
# 1 Gb/s and retimed onto 10 Gb/s gives the training time, time to target,
# iterations to target and per-rank bytes of the same run trained on 10 Gb/s
# (as text: the same doubles); retimed onto its own network it gives its own;
# replayed only up to the target (--to-target, also for Local SGD), the same
# time to target. --batch replays many in one process, one JSON line each.
# Then the refusals: an asynchronous run, a measured compute model, a
# folder without metrics, a cluster with another number of hosts, a missing
# folder, an MPI cluster: one line each, exit status 2.
tetrad=$1
out=$2
tools=$3
fail() {
  echo "check_retime: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
common="--quiet --model mlp --data synthetic --train-samples 1024 --test-samples 256 --workers 4
  --batch-size 16 --epochs 2 --eval-every 5 --log-every 3 --target-accuracy 0.5"
# FIELD of a JSON file (summary.json, or retime's --json output): its text.
value() {
  tr -d ' \n' < "$1" | grep -o "\"$2\":\(\[[^]]*\]\|[^,}]*\)" | head -1
}
for method in "topk|--compress topk:0.05,ef" "dpsgd|--arch gossip:ring" "local|--sync local:4"; do
  label=${method%%|*}
  flags="${method#*|} --compute flops:50"
  # shellcheck disable=SC2086
  "$tetrad" train $common $flags --cluster sim:1Gbps,50us --out "$out/$label-1g" > /dev/null ||
    fail "$label: the 1 Gb/s run failed"
  # shellcheck disable=SC2086
  "$tetrad" train $common $flags --cluster sim:10Gbps,25us --out "$out/$label-10g" > /dev/null ||
    fail "$label: the 10 Gb/s run failed"
  grep -q '"iterations_to_target": [0-9]' "$out/$label-10g/summary.json" ||
    fail "$label: the 10 Gb/s run did not reach its target"
  "$tetrad" retime "$out/$label-1g" --cluster sim:10Gbps,25us --json > "$out/$label.json" ||
    fail "$label: retime failed"
  "$tetrad" retime "$out/$label-1g" --cluster sim:1Gbps,50us --json > "$out/$label-self.json" ||
    fail "$label: retime onto its own network failed"
  for field in train_time time_to_target iterations_to_target iterations bytes_sent_per_rank; do
    want=$(value "$out/$label-10g/summary.json" $field)
    got=$(value "$out/$label.json" $field)
    [ -n "$want" ] || fail "$label: no $field in the 10 Gb/s summary"
    [ "$got" = "$want" ] || fail "$label: retimed $field: $got, trained on 10 Gb/s: $want"
    want=$(value "$out/$label-1g/summary.json" $field)
    got=$(value "$out/$label-self.json" $field)
    [ "$got" = "$want" ] || fail "$label: retimed onto its own network, $field: $got vs $want"
  done
  # Up to the target only: the same time to target, to the bit.
  "$tetrad" retime "$out/$label-1g" --cluster sim:10Gbps,25us --to-target --json \
    > "$out/$label-to-target.json" || fail "$label: retime --to-target failed"
  for field in time_to_target iterations_to_target; do
    want=$(value "$out/$label-10g/summary.json" $field)
    got=$(value "$out/$label-to-target.json" $field)
    [ "$got" = "$want" ] || fail "$label: --to-target $field: $got, trained on 10 Gb/s: $want"
  done
  [ "$(value "$out/$label-to-target.json" iterations | cut -d: -f2)" = \
    "$(value "$out/$label-10g/summary.json" iterations_to_target | cut -d: -f2)" ] ||
    fail "$label: --to-target replayed past the target"
  # The table names both networks.
  "$tetrad" retime "$out/$label-1g" --cluster sim:10Gbps,25us > "$out/$label.txt" ||
    fail "$label: retime (table) failed"
  grep -q "time to target .*(iter [0-9]*) .*(iter [0-9]*)" "$out/$label.txt" ||
    { cat "$out/$label.txt"; fail "$label: no time to target in the table"; }
  echo "check_retime: $label: $(value "$out/$label.json" train_time) as trained on 10 Gb/s"
done

error() {  # REGEX ARGS...: one line, exit status 2
  regex=$1
  shift
  sh "$tools/expect_error.sh" "$regex" "$tetrad" retime "$@" > "$out/error.log" 2>&1 ||
    { cat "$out/error.log"; fail "retime $*: not the one-line refusal '$regex'"; }
}
# shellcheck disable=SC2086
"$tetrad" train $common --compute flops:50 --sync asp --arch ps:1 --cluster sim:1Gbps,50us --out "$out/asp" \
  > /dev/null || fail "the asp run failed"
error "is asynchronous \\(--sync asp\\)" "$out/asp" --cluster sim:10Gbps,25us
# shellcheck disable=SC2086
"$tetrad" train $common --compute measured --max-iters 2 --cluster sim:1Gbps,50us \
  --out "$out/measured" > /dev/null || fail "the measured run failed"
error "charged measured compute times" "$out/measured" --cluster sim:10Gbps,25us
"$tetrad" retime "$out/measured" --cluster sim:10Gbps,25us --compute fixed:1ms > /dev/null ||
  fail "retime with --compute of a measured run failed"
mkdir -p "$out/no-metrics"
cp "$out/topk-1g/config.json" "$out/no-metrics/"
error "has no summary.json|has no metrics" "$out/no-metrics" --cluster sim:10Gbps,25us
error "has 8 hosts but .* runs 4 ranks" "$out/topk-1g" --cluster sim:8x10Gbps,25us
error "no such run folder" "$out/nothing-here" --cluster sim:10Gbps,25us
error "give sim:SPEC" "$out/topk-1g" --cluster mpi
error "not both" "$out/topk-1g" --cluster sim:10Gbps,25us --net-model cm02 --net-profile x.json
error "--as-run writes the whole run" "$out/topk-1g" --cluster sim:10Gbps,25us --to-target \
  --as-run --out "$out/as-run"
error "--cluster is required" "$out/topk-1g"
error "give the run folder" --cluster sim:10Gbps,25us
# --batch: one JSON line per replay, in order, the same doubles as one retime;
# a refused replay (asynchronous) is a "refusal" line; a bad line one error.
printf '{"run": "%s", "cluster": "sim:10Gbps,25us"}\n{"run": "%s", "cluster": "sim:10Gbps,25us"}\n' \
  "$out/topk-1g" "$out/asp" > "$out/batch.jsonl"
"$tetrad" retime --batch "$out/batch.jsonl" --to-target > "$out/batch.out" || fail "--batch failed"
[ "$(wc -l < "$out/batch.out")" -eq 2 ] || { cat "$out/batch.out"; fail "--batch: not 2 lines"; }
head -1 "$out/batch.out" | grep -q "$(value "$out/topk-10g/summary.json" time_to_target)" ||
  { cat "$out/batch.out"; fail "--batch: not the 10 Gb/s run's time to target"; }
sed -n 2p "$out/batch.out" | grep -q '"refusal":".*is asynchronous' ||
  { cat "$out/batch.out"; fail "--batch: the asynchronous run is not refused"; }
echo '{"run": 3}' > "$out/bad.jsonl"
error "bad.jsonl line 1: not" --batch "$out/bad.jsonl"
error "do not go with it" --batch "$out/batch.jsonl" --cluster sim:10Gbps,25us
echo "check_retime: PASS"
