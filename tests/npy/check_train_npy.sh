#!/bin/sh
# usage: check_train_npy.sh TETRAD PYTHON WORKDIR
# `tetrad train --data npy:DIR` (and --data npy --data-dir DIR) end to end: NumPy writes a small learnable data set
# (4 classes, 8x8 uint8 images, class c brightens quadrant c; and the same
# images as float32 values in [-1, 1]), 2 simulated workers train an mlp on
# each and reach a test accuracy far above chance; a
# folder whose test labels are one short is refused with one line naming the
# file and exit status 2.
set -eu
tetrad=$1
python=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir/good" "$dir/short" "$dir/float"
"$python" - "$dir" <<'PY'
import sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(0)
for split, n in (("train", 1024), ("test", 256)):
    y = rng.integers(0, 4, n)
    x = rng.integers(0, 60, (n, 8, 8))
    for i, c in enumerate(y):
        r, q = divmod(int(c), 2)
        x[i, 4 * r:4 * r + 4, 4 * q:4 * q + 4] += 180
    for sub in ("good", "short"):
        np.save(f"{d}/{sub}/{split}_x.npy", x.astype(np.uint8))
        labels = y if sub == "good" or split == "train" else y[:-1]
        np.save(f"{d}/{sub}/{split}_y.npy", labels.astype(np.int64))
    np.save(f"{d}/float/{split}_x.npy", (x / 127.5 - 1).astype(np.float32))
    np.save(f"{d}/float/{split}_y.npy", y.astype(np.uint8))
PY
for kind in good float; do
  "$tetrad" train --quiet --data "npy:$dir/$kind" --model mlp --workers 2 \
    --cluster sim:10Gbps,25us --max-iters 60 --out "$dir/run-$kind"
  accuracy=$(tr -d ' \n' < "$dir/run-$kind/summary.json" |
    sed -E 's/.*"final_test_accuracy":([0-9.e+-]+).*/\1/')
  echo "final test accuracy on the NPY data ($kind): $accuracy (chance: 0.25)"
  awk -v a="$accuracy" 'BEGIN { exit !(a >= 0.9) }' ||
    { echo "check_train_npy: FAIL: accuracy $accuracy < 0.9 ($kind)"; exit 1; }
done
sh "$(dirname "$0")/../tools/expect_one_line_error.sh" "test_y.npy' has 255 labels but its inputs have 256" \
  "$tetrad" train --quiet --data npy --data-dir "$dir/short" --model mlp --workers 2 \
  --max-iters 2 --out "$dir/run_short"
