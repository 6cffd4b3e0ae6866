"""`pip install .` works offline and installs a complete, importable package.

pip runs pyproject.toml's in-tree backend (python/build_backend/tetrad_build.py)
on the build tree named by TETRAD_BUILD_DIR (ctest passes CMAKE_BINARY_DIR), so
only target tetrad_python is (re)built there. The installed package is then
imported by a fresh interpreter whose PYTHONPATH holds the install alone, and
checked to carry py.typed and the stubs _tetrad.pyi, whose names must all
exist in the compiled module. A wheel built with `pip wheel` must have a
RECORD that matches every file of the zip.
"""
import ast
import base64
import csv
import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD_DIR = os.environ.get("TETRAD_BUILD_DIR")


def _pip_available():
    out = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True,
                         check=False)
    return out.returncode == 0


pytestmark = [
    pytest.mark.skipif(not BUILD_DIR, reason="TETRAD_BUILD_DIR is not set (ctest sets it to "
                       "the build tree whose target tetrad_python pip reuses)"),
    pytest.mark.skipif(not _pip_available(), reason=f"pip is not installed for {sys.executable} "
                       "(Debian: python3-pip)"),
]


def _pip(*args):
    """Runs `python -m pip ARGS` offline from the repository root; asserts success."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(TETRAD_BUILD_DIR=BUILD_DIR, PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    out = subprocess.run([sys.executable, "-m", "pip", *args, "--no-deps", "--no-index", "."],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=540,
                         check=False)
    assert out.returncode == 0, f"pip {' '.join(args)} failed:\n{out.stdout}\n{out.stderr}"
    return out


def _installed_site(prefix):
    """The site dir under `prefix` that holds the tetrad package (lib/python3.X/...)."""
    found = sorted(prefix.glob("**/tetrad/__init__.py"))
    assert len(found) == 1, f"expected one installed tetrad under {prefix}, found {found}"
    return found[0].parent.parent


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    _pip("install", "--prefix", str(prefix))
    return prefix, _installed_site(prefix)


def _fresh_python(site, code, cwd):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=300, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def test_installed_package_imports_from_the_prefix(installed, tmp_path):
    prefix, site = installed
    code = ("import json, tetrad, tetrad.torch\n"
            "print(json.dumps([tetrad.__file__, tetrad._tetrad.__file__, tetrad.torch.__file__,"
            " tetrad.Compressor('topk:0.01,ef').spec]))")
    files = json.loads(_fresh_python(site, code, tmp_path).strip().splitlines()[-1])
    for path in files[:3]:
        assert Path(path).resolve().is_relative_to(prefix.resolve()), (path, prefix)
    assert files[3] == "topk:0.01,ef"
    assert (site / "tetrad" / "py.typed").is_file()
    assert (site / "tetrad" / "_tetrad.pyi").read_text() == \
        (ROOT / "python" / "tetrad" / "_tetrad.pyi").read_text()
    dist_info = list(site.glob("tetrad-*.dist-info"))
    assert len(dist_info) == 1 and (dist_info[0] / "RECORD").is_file()


def _stub_names():
    """{name: [member names]} of the stub's top-level classes, functions and constants."""
    tree = ast.parse((ROOT / "python" / "tetrad" / "_tetrad.pyi").read_text())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names[node.name] = [m.name for m in node.body if isinstance(m, ast.FunctionDef)] + \
                [m.target.id for m in node.body if isinstance(m, ast.AnnAssign)]
        elif isinstance(node, ast.FunctionDef):
            names[node.name] = []
        elif isinstance(node, ast.AnnAssign):
            names[node.target.id] = []
    return {k: v for k, v in names.items() if not k.startswith("_")}


def test_stubs_name_what_the_module_has(installed, tmp_path):
    _, site = installed
    code = ("import json, tetrad._tetrad as m\n"
            "print(json.dumps({n: dir(getattr(m, n)) for n in dir(m) if not n.startswith('_')}"
            " | {'HAS_LAYOUT': [], '__layout__': [m.HAS_LAYOUT]}))")
    module = json.loads(_fresh_python(site, code, tmp_path).strip().splitlines()[-1])
    has_layout = module.pop("__layout__")[0]
    stub = _stub_names()
    assert sorted(stub) == sorted(module), "stub and module disagree on top-level names"
    for name, members in stub.items():
        missing = [m for m in members if m not in module[name] and m != "__init__"
                   and not (m == "layout" and not has_layout)]
        assert not missing, f"{name}: the stub names {missing}, which the module lacks"


def test_wheel_record_verifies(tmp_path):
    _pip("wheel", "-w", str(tmp_path))
    wheels = list(tmp_path.glob("tetrad-*.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as wheel:
        names = wheel.namelist()
        records = [n for n in names if n.endswith(".dist-info/RECORD")]
        assert len(records) == 1, names
        rows = list(csv.reader(io.StringIO(wheel.read(records[0]).decode("utf-8"))))
        listed = {}
        for path, digest, size in rows:
            assert path not in listed, f"{path} is listed twice in RECORD"
            listed[path] = (digest, size)
            if path == records[0]:
                assert digest == "" and size == "", "RECORD must list itself without a hash"
                continue
            data = wheel.read(path)
            algorithm, _, value = digest.partition("=")
            assert algorithm == "sha256", digest
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            assert value == expected.decode("ascii"), f"{path}: hash mismatch"
            assert int(size) == len(data), f"{path}: size mismatch"
        assert sorted(listed) == sorted(names), "RECORD and the zip list different files"
        wheel_file = wheel.read(records[0].replace("RECORD", "WHEEL")).decode("utf-8")
    assert "Root-Is-Purelib: false" in wheel_file
    tag = next(line.split(": ", 1)[1] for line in wheel_file.splitlines()
               if line.startswith("Tag: "))
    assert wheels[0].name.endswith(f"-{tag}.whl")
    assert {"tetrad/py.typed", "tetrad/_tetrad.pyi", "tetrad/__init__.py", "tetrad/torch.py"} \
        <= set(names)
    assert any(n.startswith("tetrad/_tetrad") and n.endswith(".so") for n in names)
