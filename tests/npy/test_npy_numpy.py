"""NPY files written by NumPy itself, read by tetrad's reader (tetrad_npy_inspect).

Every supported dtype and several shapes round-trip bit for bit; Fortran order,
big-endian and other dtypes are refused with the file named; a dataset folder
loads with uint8 or float32 inputs, and mismatched lengths, mixed input dtypes,
non-finite values and bad labels are refused.
"""
import os
import subprocess

import numpy
import pytest

INSPECT = os.environ.get("TETRAD_NPY_INSPECT", "")
pytestmark = pytest.mark.skipif(not os.path.exists(INSPECT),
                                reason="TETRAD_NPY_INSPECT names no built tetrad_npy_inspect")


def inspect(*args):
    out = subprocess.run([INSPECT, *map(str, args)], capture_output=True, text=True, check=False)
    return out.returncode, out.stdout.strip(), out.stderr.strip()


def fnv1a(data):
    h = 1469598103934665603
    for b in data:
        h = ((h ^ b) * 1099511628211) & (2 ** 64 - 1)
    return f"{h:016x}"


@pytest.mark.parametrize("dtype", ["uint8", "int64", "float32"])
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4, 5), (2, 1, 3, 4)])
def test_numpy_files_round_trip(tmp_path, dtype, shape):
    rng = numpy.random.default_rng(1)
    array = (rng.standard_normal(shape) * 100).astype(dtype)
    path = tmp_path / "a.npy"
    numpy.save(path, array)
    rc, out, err = inspect(path)
    assert rc == 0, err
    shown = "scalar" if shape == () else "x".join(map(str, shape))
    assert out == f"{dtype} {shown} {fnv1a(array.tobytes())}"


@pytest.mark.parametrize("make, message", [
    (lambda: numpy.asfortranarray(numpy.zeros((3, 4), numpy.float32)), "Fortran order"),
    (lambda: numpy.zeros(4, ">f4"), "dtype '>f4'"),
    (lambda: numpy.zeros(4, numpy.float64), "dtype '<f8'"),
    (lambda: numpy.zeros(4, numpy.int32), "dtype '<i4'"),
])
def test_refused_files_name_the_file(tmp_path, make, message):
    path = tmp_path / "bad.npy"
    numpy.save(path, make())
    rc, _, err = inspect(path)
    assert rc == 2 and message in err and str(path) in err, err


def test_truncated_and_wrong_magic(tmp_path):
    path = tmp_path / "t.npy"
    numpy.save(path, numpy.arange(100, dtype=numpy.int64))
    data = path.read_bytes()
    path.write_bytes(data[:-5])
    rc, _, err = inspect(path)
    assert rc == 2 and "truncated" in err and str(path) in err, err
    path.write_bytes(b"PK" + data[2:])
    rc, _, err = inspect(path)
    assert rc == 2 and "wrong magic" in err, err


def write_split(folder, split, n, labels_dtype=numpy.int64, x_dtype=numpy.uint8, labels=None):
    rng = numpy.random.default_rng(n)
    numpy.save(folder / f"{split}_x.npy", rng.integers(0, 256, (n, 28, 28)).astype(x_dtype))
    y = rng.integers(0, 10, n) if labels is None else numpy.array(labels)
    numpy.save(folder / f"{split}_y.npy", y.astype(labels_dtype))


@pytest.mark.parametrize("x_dtype", [numpy.uint8, numpy.float32])
def test_dataset_folder(tmp_path, x_dtype):
    write_split(tmp_path, "train", 50, labels=list(range(10)) * 5, x_dtype=x_dtype)
    write_split(tmp_path, "test", 20, labels_dtype=numpy.uint8, x_dtype=x_dtype)
    rc, out, err = inspect("--dataset", tmp_path)
    assert rc == 0, err
    assert out == "train 50 1x28x28 classes 10 test 20"


def test_dataset_refusals(tmp_path):
    write_split(tmp_path, "train", 50, labels=list(range(10)) * 5)
    write_split(tmp_path, "test", 20)
    numpy.save(tmp_path / "test_y.npy", numpy.zeros(19, numpy.int64))
    rc, _, err = inspect("--dataset", tmp_path)
    assert rc == 2 and "test_y.npy' has 19 labels but its inputs have 20" in err, err
    write_split(tmp_path, "test", 20, labels=[10] * 20)
    rc, _, err = inspect("--dataset", tmp_path)
    assert rc == 2 and "test_y.npy" in err and "label 10" in err, err
    write_split(tmp_path, "test", 20, x_dtype=numpy.float32)
    rc, _, err = inspect("--dataset", tmp_path)
    assert rc == 2 and "test inputs are float32 but training inputs uint8" in err, err
    write_split(tmp_path, "train", 50, labels=list(range(10)) * 5, x_dtype=numpy.float32)
    x = numpy.load(tmp_path / "test_x.npy")
    x[3, 2, 1] = numpy.nan
    numpy.save(tmp_path / "test_x.npy", x)
    rc, _, err = inspect("--dataset", tmp_path)
    assert rc == 2 and "test_x.npy': input value nan (sample 3) is not finite" in err, err
