"""examples/ddp_mnist.py runs end to end (a few iterations) and ends with its JSON line,
with tetrad's comm hook, model averaging (tetrad's and torch's) and gossip.

(Its other hooks, plain DDP and torch's fp16 hook, run in bench/ddp_hooks.py.)
"""
import json
import math
import os
import subprocess
import sys

import pytest

EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "ddp_mnist.py")
DATA = "/usr/share/datasets/fashion-mnist"
ELEMENTS = 1663370  # the cnn's parameters
needs_data = pytest.mark.skipif(
    not os.path.exists(os.path.join(DATA, "train-images-idx3-ubyte.gz")),
    reason="dataset-fashion-mnist is not installed")


def start_example(*extra, iters, ranks=2):
    """A short run of the example, started (finish_example waits for it)."""
    command = [sys.executable, EXAMPLE, "--ranks", str(ranks), "--iters", str(iters),
               "--log-every", "0", "--test-samples", "200", *extra]
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish_example(run, iters, ranks=2):
    """Rank 0's JSON line of a run, checked for what every mode reports."""
    try:
        stdout, stderr = run.communicate(timeout=300)
    finally:
        if run.poll() is None:
            run.kill()
    assert run.returncode == 0, stdout + stderr
    result = json.loads(stdout.strip().splitlines()[-1])
    assert result["iters"] == iters and result["ranks"] == ranks
    assert result["parameters"] == ELEMENTS
    assert isinstance(result["test_accuracy"], float) and 0.0 <= result["test_accuracy"] <= 1.0
    assert result["samples_per_s"] > 0 and result["bytes_per_iteration"] > 0
    assert math.isfinite(result["final_loss"])
    return result


def run_example(*extra, iters, ranks=2):
    return finish_example(start_example(*extra, iters=iters, ranks=ranks), iters, ranks)


def ring(ranks):
    """Bytes one rank sends in a ring all-reduce of the cnn (float32)."""
    return 2 * (ranks - 1) * 4 * ELEMENTS / ranks


@needs_data
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
    assert result["average"] is None and result["gossip"] is None


@needs_data
def test_local_sgd_tetrad_equals_torch():
    """local:4 over 6 steps averages at steps 0 and 4: tetrad's uncompressed averager is
    torch's arithmetic, so both train the same models and count the same bytes."""
    runs = [start_example("--average", "local:4", iters=6),  # side by side: 4 ranks
            start_example("--average", "local:4", "--average-impl", "torch", iters=6)]
    try:
        ours, theirs = [finish_example(run, 6) for run in runs]
    finally:
        for run in runs:
            if run.poll() is None:
                run.kill()
    assert ours["hook"] == "tetrad post_local_hook" and ours["average_impl"] == "tetrad"
    assert theirs["hook"] == "torch post_localSGD_hook" and theirs["average_impl"] == "torch"
    for result in (ours, theirs):
        assert result["bytes_per_iteration"] == round(2 * ring(2) / 6)
        # Step 5 trained locally after the last averaging: the models differ.
        assert result["consensus_distance"] > 0
    for name in ("test_accuracy", "final_loss", "consensus_distance"):
        assert ours[name] == theirs[name], name


@needs_data
def test_post_local_with_compressed_delta():
    """post-local:8:4 over 13 steps: 8 top-k compressed gradient reductions (the averager
    compresses the synchronous phase too), an exact first averaging at step 8 (it sets the
    anchor), and a top-k compressed delta at step 12: 9 exchanges of about 2% of the ring's
    bytes each (1% of the values with their indices) and one whole."""
    result = run_example("--average", "post-local:8:4", "--compress", "topk:0.01,ef", iters=13)
    assert result["compress"] == "topk:0.01,ef" and result["average"] == "post-local:8:4"
    exact = ring(2) / 13
    assert exact + 9 * 0.015 * ring(2) / 13 < result["bytes_per_iteration"]
    assert result["bytes_per_iteration"] < exact + 9 * 0.03 * ring(2) / 13
    assert result["hook_ms_per_iteration"] > 0


@needs_data
@pytest.mark.parametrize("ranks, extra, per_step", [
    # D-PSGD on a ring of 3: the whole model to each of the 2 neighbours every step.
    (3, ["--gossip", "ring"], 2 * 4 * ELEMENTS),
    # CHOCO with top-k 10% to the one neighbour of a ring of 2: about 8 bytes per kept value.
    (2, ["--gossip", "ring", "--gossip-algorithm", "choco", "--compress", "topk:0.1"], None),
])
def test_gossip(ranks, extra, per_step):
    result = run_example(*extra, iters=4, ranks=ranks)
    assert result["gossip"] == "ring" and result["hook"] is None
    assert result["consensus_distance"] >= 0
    if per_step is not None:
        assert result["bytes_per_iteration"] == per_step
    else:
        assert result["gamma"] == 0.5
        kept = round(0.1 * ELEMENTS)
        assert 8 * kept <= result["bytes_per_iteration"] < 8.1 * kept


@pytest.mark.parametrize("extra, words", [
    (["--gossip", "ring", "--average", "local:4"], "pick one"),
    (["--average", "local:4", "--average-impl", "torch", "--compress", "topk:0.01"],
     "--compress"),
])
def test_example_refuses_a_bad_combination(extra, words):
    out = subprocess.run([sys.executable, EXAMPLE, *extra], capture_output=True, text=True,
                         timeout=120, check=False)
    assert out.returncode != 0 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], out.stderr


def test_example_refuses_a_bad_spec():
    out = subprocess.run([sys.executable, EXAMPLE, "--compress", "topk:2"], capture_output=True,
                         text=True, timeout=120, check=False)
    assert out.returncode != 0 and "ratio must be in (0, 1]" in out.stderr, out.stderr
