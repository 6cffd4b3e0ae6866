#!/bin/sh
# usage: check_scripted_model.sh TETRAD MODELS OUT MPIRUN...
# `tetrad train --model FILE.pt` from the command line (docs/training.md,
# "Own models"), with the modules of make_scripted_models.py in MODELS:
#   - cnn.pt has the built-in cnn's tensors and FLOPs, so under --compute
#     flops:100 its simulated training time and bytes equal the built-in
#     cnn's, in a real run and timing-only;
#   - it trains on both engines (2 simulated ranks, mpirun -np 2) and prints
#     how its forward stages were chosen;
#   - a module that is not TorchScript, or gives the wrong number of
#     classes: one line, exit status 2.
tetrad=$1
models=$2
out=$3
shift 3
mpirun="$*"
fail() {
  echo "check_scripted_model: FAIL: $*"
  exit 1
}
rm -rf "$out"
mkdir -p "$out"
field() {
  grep -o "\"$2\": *[^,]*" "$1/summary.json"
}
array() {
  tr -d ' \n' < "$1/summary.json" | grep -o "\"$2\":\[[^]]*\]"
}
set -- --data synthetic --train-samples 512 --test-samples 64 --max-iters 6 --log-every 2 \
  --compute flops:100 --workers 2 --cluster sim:1Gbps,50us --quiet
for mode in real timing; do
  extra=""
  [ $mode = timing ] && extra=--timing-only
  for model in cnn file; do
    m=cnn
    [ $model = file ] && m="$models/cnn.pt"
    # shellcheck disable=SC2086
    "$tetrad" train "$@" --model "$m" $extra --out "$out/$mode-$model" > "$out/$mode-$model.log" 2>&1 ||
      { cat "$out/$mode-$model.log"; fail "$mode run of $m failed"; }
  done
  for f in train_time iterations parameters; do
    a=$(field "$out/$mode-cnn" $f)
    b=$(field "$out/$mode-file" $f)
    [ "$a" = "$b" ] || fail "$mode: $f of cnn.pt ($b) differs from the built-in cnn's ($a)"
  done
  a=$(array "$out/$mode-cnn" bytes_sent_per_rank)
  b=$(array "$out/$mode-file" bytes_sent_per_rank)
  [ "$a" = "$b" ] || fail "$mode: bytes of cnn.pt ($b) differ from the built-in cnn's ($a)"
  echo "$mode: cnn.pt = cnn: $(field "$out/$mode-file" train_time)"
done

# Both engines, with the stages stated on the opening line.
"$tetrad" train --model "$models/cnn.pt" --data synthetic --train-samples 256 --test-samples 64 \
  --max-iters 3 --workers 2 --sched priority --out "$out/sim" > "$out/sim.log" 2>&1 ||
  { cat "$out/sim.log"; fail "simulated run with --sched priority failed"; }
grep -q "model file .*cnn.pt: 24.55 MFLOPs per sample forward, 4 forward stages" "$out/sim.log" ||
  { cat "$out/sim.log"; fail "no stage statement"; }
grep -q '"model": ".*cnn.pt"' "$out/sim/config.json" || fail "config.json does not name the file"
# shellcheck disable=SC2086
$mpirun -np 2 "$tetrad" train --cluster mpi --model "$models/bn.pt" --data synthetic \
  --train-samples 256 --test-samples 64 --max-iters 3 --out "$out/mpi" > "$out/mpi.log" 2>&1 ||
  { cat "$out/mpi.log"; fail "mpirun run failed"; }
grep -Eq "^  test accuracy +[0-9.]+" "$out/mpi.log" || { cat "$out/mpi.log"; fail "no summary"; }

# The advisor sees the scripted cnn as the built-in cnn (same tensors and
# FLOPs; codecs at nominal speed so that both outputs are deterministic).
for m in cnn "$models/cnn.pt"; do
  "$tetrad" advise --model "$m" --workers 8 --cluster sim:1Gbps,50us --no-measure \
    > "$out/advise-$(basename "$m").txt" 2>&1 || { cat "$out/advise-$(basename "$m").txt"; fail "advise --model $m failed"; }
done
cmp -s "$out/advise-cnn.txt" "$out/advise-cnn.pt.txt" ||
  { diff "$out/advise-cnn.txt" "$out/advise-cnn.pt.txt" | head -20; fail "advise differs for cnn.pt"; }
"$tetrad" advise --model cnn --input 3x32x32 --workers 8 --cluster sim:1Gbps,50us \
  > /dev/null 2> "$out/advise.err" && fail "advise --input with a built-in model accepted"
grep -q "input applies to a model file" "$out/advise.err" || { cat "$out/advise.err"; fail "--input"; }

# Refusals.
refused() {  # refused REGEX FILE
  "$tetrad" train --model "$2" --data synthetic --train-samples 256 --max-iters 1 \
    --out "$out/refused" > "$out/refused.log" 2> "$out/refused.err"
  status=$?
  [ "$status" = 2 ] || { cat "$out/refused.err"; fail "$2: exit status $status, 2 expected"; }
  [ "$(wc -l < "$out/refused.err")" = 1 ] || { cat "$out/refused.err"; fail "$2: not one line"; }
  grep -Eq "$1" "$out/refused.err" || { cat "$out/refused.err"; fail "$2: no '$1'"; }
}
refused "is not a TorchScript module" "$models/not-a-module.pt"
refused "gives an output of shape \[1, 7\]" "$models/wrong.pt"
refused "'$out/absent.pt': no such file" "$out/absent.pt"
echo "check_scripted_model: PASS"
