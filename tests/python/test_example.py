"""examples/ddp_mnist.py runs end to end (a few iterations) and ends with its JSON line.

(Its other hooks, plain DDP and torch's fp16 hook, run in bench/ddp_hooks.py.)
"""
import json
import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ddp_mnist.py")
DATA = "/usr/share/datasets/fashion-mnist"


@pytest.mark.skipif(not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")),
                    reason="dataset-fashion-mnist is not installed")
def test_example_prints_its_json_line():
    extra = ["--compress", "topk:0.01,ef"]
    out = subprocess.run([sys.executable, EXAMPLE, "--iters", "4", "--log-every", "2",
                          "--test-samples", "200", "--eval-every", "2", *extra],
                         capture_output=True, text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["iters"] == 4 and result["ranks"] == 2
    assert 0.0 <= result["test_accuracy"] <= 1.0 and result["samples_per_s"] > 0
    # Top-k 1% of 1.66 M floats: about 64 bits per kept element, far below float32.
    assert 0 < result["bytes_per_iteration"] < 0.05 * 4 * result["parameters"]
    assert result["hook_ms_per_iteration"] > 0
    # --eval-every 2: one evaluation mid-run (clock paused) and the final one.
    assert [e[0] for e in result["evals"]] == [2, 4]
    assert 0 < result["evals"][0][1] < result["evals"][1][1] <= result["seconds"] + 1e-3
    assert result["time_to_target"] is None and result["target_accuracy"] is None


def test_example_refuses_a_bad_spec():
    out = subprocess.run([sys.executable, EXAMPLE, "--compress", "topk:2"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode != 0 and "ratio must be in (0, 1]" in out.stderr, out.stderr
