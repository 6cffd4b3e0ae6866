"""tetrad_build: the PEP 517 build backend of the Python package tetrad.

pyproject.toml names it (backend-path python/build_backend), so `pip install .`
needs nothing but the Python standard library: no setuptools, no wheel, no
download, which keeps pip's build isolation working offline on Debian 12.

build_wheel runs the project's CMake on one build directory and builds the
target tetrad_python alone; that target lays the package out in
BUILD/python/tetrad (the compiled _tetrad*.so next to copies of the *.py, the
*.pyi stubs and py.typed). The wheel is written by hand with zipfile, tagged
for the running interpreter. The build directory is, first match wins:
config setting build-dir (pip --config-settings build-dir=PATH), the
environment variable TETRAD_BUILD_DIR, REPO/build when it holds a
CMakeCache.txt (the developer's tree is reused), else REPO/build/pip
(configured here for this interpreter). Relative paths are taken from the
repository root. Other config settings: jobs=N (parallel build; default
CMAKE_BUILD_PARALLEL_LEVEL or every core) and cmake-args="..." (added to a
fresh configure). build_editable (PEP 660) builds the same way and installs a
.pth file that puts BUILD/python on sys.path; build_sdist packs the files git
tracks or would track. Every failure raises BuildError with one line naming
the problem and the build directory.
"""
import base64
import csv
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import zipfile
from pathlib import Path

__all__ = [
    "build_editable", "build_sdist", "build_wheel", "get_requires_for_build_editable",
    "get_requires_for_build_sdist", "get_requires_for_build_wheel",
    "prepare_metadata_for_build_editable", "prepare_metadata_for_build_wheel",
]

# Files of python/tetrad that go into the package (with the extension).
_PACKAGE_PATTERNS = ("*.py", "*.pyi", "py.typed")
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class BuildError(RuntimeError):
    """A build step failed; the message is one line naming it and the build dir."""


# --- the project --------------------------------------------------------------


def _root():
    """The source tree: PEP 517 runs hooks there; else this file's repository."""
    cwd = Path.cwd()
    if (cwd / "pyproject.toml").is_file() and (cwd / "python" / "tetrad").is_dir():
        return cwd.resolve()
    return Path(__file__).resolve().parents[2]


def _read_project(root):
    """pyproject.toml's [project] table (tomllib, or a reader of its simple lines)."""
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    try:
        import tomllib
    except ModuleNotFoundError:  # Python < 3.11: strings and one-line lists suffice
        project, inside = {}, False
        for line in text.splitlines():
            line = line.strip()
            if line.startswith("["):
                inside = line == "[project]"
            match = re.match(r'([A-Za-z-]+)\s*=\s*(".*"|\[.*\])\s*$', line) if inside else None
            if match and match.group(2).startswith("["):
                project[match.group(1)] = re.findall(r'"([^"]*)"', match.group(2))
            elif match:
                project[match.group(1)] = match.group(2)[1:-1]
        return project
    return tomllib.loads(text)["project"]


def _metadata(root):
    """(distribution name, version, METADATA text) from pyproject.toml."""
    project = _read_project(root)
    name, version = project["name"], project["version"]
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    if project.get("description"):
        lines.append(f"Summary: {project['description']}")
    if project.get("requires-python"):
        lines.append(f"Requires-Python: {project['requires-python']}")
    lines += [f"Requires-Dist: {dependency}" for dependency in project.get("dependencies", [])]
    body = ""
    readme = project.get("readme")
    if isinstance(readme, str) and (root / readme).is_file():
        lines.append("Description-Content-Type: text/markdown")
        body = "\n" + (root / readme).read_text(encoding="utf-8")
    return re.sub(r"[-_.]+", "_", name).lower(), version, "\n".join(lines) + "\n" + body


def _wheel_tag():
    """The running interpreter's most specific tag, e.g. cp311-cp311-linux_x86_64."""
    impl = sys.implementation.name
    version = f"{sys.version_info[0]}{sys.version_info[1]}"
    interpreter = {"cpython": "cp", "pypy": "pp"}.get(impl, impl) + version
    if impl == "cpython":
        abi = "cp" + version
        abi += "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
        abi += "d" if sysconfig.get_config_var("Py_DEBUG") else ""
    else:
        abi = re.sub(r"[-.]", "_", sysconfig.get_config_var("SOABI") or "none")
    platform = re.sub(r"[-.]", "_", sysconfig.get_platform())
    return f"{interpreter}-{abi}-{platform}"


def _wheel_file(tag):
    return f"Wheel-Version: 1.0\nGenerator: tetrad_build\nRoot-Is-Purelib: false\nTag: {tag}\n"


# --- CMake --------------------------------------------------------------------


def _setting(config_settings, key):
    """One config setting (pip passes a list when a key is given twice: the last wins)."""
    value = (config_settings or {}).get(key)
    if isinstance(value, list):
        value = value[-1] if value else None
    return value or None


def _build_dir(root, config_settings):
    chosen = _setting(config_settings, "build-dir") or os.environ.get("TETRAD_BUILD_DIR")
    if chosen:
        path = Path(chosen).expanduser()
        return (path if path.is_absolute() else root / path).resolve()
    if (root / "build" / "CMakeCache.txt").is_file():
        return root / "build"
    return root / "build" / "pip"


def _cache_entries(build):
    """CMakeCache.txt as {name: value}."""
    entries = {}
    text = (build / "CMakeCache.txt").read_text(encoding="utf-8", errors="replace")
    for line in text.splitlines():
        match = re.match(r"([^#/][^:=]*):[A-Z_]+=(.*)$", line)
        if match:
            entries[match.group(1)] = match.group(2)
    return entries


def _run_cmake(args, what, build, hint=""):
    cmake = shutil.which("cmake")
    if cmake is None:
        raise BuildError(f"tetrad: cmake not found on PATH, needed to build in {build} "
                         "(Debian: apt-get install cmake; scripts/setup.sh)")
    print(f"tetrad_build: {' '.join(shlex.quote(a) for a in [cmake, *args])}", flush=True)
    if subprocess.run([cmake, *args]).returncode != 0:
        raise BuildError(f"tetrad: {what} failed in build dir {build}; "
                         f"CMake's output is above{hint}")


def _configure(root, build, config_settings):
    """Configures `build` unless it already is (a cache and a generated build
    system: a configure that failed half-way is run again); refuses a tree of
    other sources or one without the Python package."""
    if (build / "CMakeCache.txt").is_file():
        cache = _cache_entries(build)
        home = cache.get("CMAKE_HOME_DIRECTORY")
        if home and Path(home).resolve() != root:
            raise BuildError(f"tetrad: build dir {build} is configured for the sources in {home}, "
                             f"not {root}; choose another TETRAD_BUILD_DIR")
        if cache.get("TETRAD_PYTHON", "ON").upper() in ("OFF", "0", "FALSE", "NO"):
            raise BuildError(f"tetrad: build dir {build} is configured with -DTETRAD_PYTHON=OFF; "
                             "reconfigure it with -DTETRAD_PYTHON=ON or choose another build dir")
        if (build / "Makefile").is_file() or (build / "build.ninja").is_file():
            return  # generated: `cmake --build` re-runs CMake itself when needed
    python = os.path.realpath(sys.executable)  # a venv's python resolves to its base
    extra = shlex.split(_setting(config_settings, "cmake-args") or "")
    _run_cmake(["-S", str(root), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                "-DTETRAD_PYTHON=ON", f"-DTETRAD_PYTHON_EXECUTABLE={python}", *extra],
               "CMake configure", build, f" (delete {build} to start afresh)")


def _build_package(root, config_settings):
    """Configures and builds target tetrad_python; returns (build dir, package dir)."""
    build = _build_dir(root, config_settings)
    _configure(root, build, config_settings)
    jobs = _setting(config_settings, "jobs")
    if jobs is None and not os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL"):
        jobs = str(os.cpu_count() or 1)
    parallel = ["-j", jobs] if jobs else []
    _run_cmake(["--build", str(build), "--target", "tetrad_python", *parallel],
               "building target tetrad_python", build)
    return build, build / "python" / "tetrad"


def _package_files(root, package, build):
    """[(name in the wheel, path)] of the built package, the extension first."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    extension = package / f"_tetrad{suffix}"
    if not extension.is_file():
        found = sorted(p.name for p in package.glob("_tetrad*")) or ["nothing"]
        raise BuildError(f"tetrad: build dir {build} has no {extension.name} for {sys.executable} "
                         f"(found {', '.join(found)}): it was configured for another Python; "
                         "choose another TETRAD_BUILD_DIR or set -DTETRAD_PYTHON_EXECUTABLE")
    files = [(f"tetrad/{extension.name}", extension)]
    sources = sorted({p.name for pattern in _PACKAGE_PATTERNS
                      for p in (root / "python" / "tetrad").glob(pattern)})
    for name in sources:
        built = package / name
        if not built.is_file():
            raise BuildError(f"tetrad: {built} is missing after the build in build dir {build}; "
                             "python/CMakeLists.txt copies python/tetrad/*.py, *.pyi, py.typed")
        files.append((f"tetrad/{name}", built))
    return files


# --- archives -------------------------------------------------------------------


def _record_hash(data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _write_wheel(directory, root, tag, contents):
    """Writes the wheel of `contents` [(name, bytes, mode)] plus dist-info; returns its name."""
    name, version, metadata = _metadata(root)
    dist_info = f"{name}-{version}.dist-info"
    contents = list(contents) + [
        (f"{dist_info}/METADATA", metadata.encode("utf-8"), 0o644),
        (f"{dist_info}/WHEEL", _wheel_file(tag).encode("utf-8"), 0o644),
    ]
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for arcname, data, _ in contents:
        writer.writerow([arcname, _record_hash(data), len(data)])
    writer.writerow([f"{dist_info}/RECORD", "", ""])
    contents.append((f"{dist_info}/RECORD", record.getvalue().encode("utf-8"), 0o644))
    filename = f"{name}-{version}-{tag}.whl"
    Path(directory).mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(Path(directory) / filename, "w", zipfile.ZIP_DEFLATED) as wheel:
        for arcname, data, mode in contents:
            info = zipfile.ZipInfo(arcname, date_time=_ZIP_TIME)
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return filename


def _write_metadata_dir(metadata_directory, tag):
    root = _root()
    name, version, metadata = _metadata(root)
    dist_info = Path(metadata_directory) / f"{name}-{version}.dist-info"
    dist_info.mkdir(parents=True, exist_ok=True)
    (dist_info / "METADATA").write_text(metadata, encoding="utf-8")
    (dist_info / "WHEEL").write_text(_wheel_file(tag), encoding="utf-8")
    return dist_info.name


# --- PEP 517 / PEP 660 hooks --------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory, _wheel_tag())


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata_dir(metadata_directory, _wheel_tag())


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    root = _root()
    build, package = _build_package(root, config_settings)
    contents = []
    for arcname, path in _package_files(root, package, build):
        mode = 0o755 if os.access(path, os.X_OK) else 0o644
        contents.append((arcname, path.read_bytes(), mode))
    return _write_wheel(wheel_directory, root, _wheel_tag(), contents)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """A wheel whose .pth puts BUILD/python on sys.path: rebuilding the target
    tetrad_python (cmake --build BUILD --target tetrad_python) updates the install."""
    root = _root()
    build, package = _build_package(root, config_settings)
    _package_files(root, package, build)  # the build is complete and for this interpreter
    pth = (str(package.parent) + "\n").encode("utf-8")
    contents = [("__editable__.tetrad.pth", pth, 0o644)]
    return _write_wheel(wheel_directory, root, _wheel_tag(), contents)


def _sdist_files(root):
    """Files git tracks, or would track (untracked but not ignored), that exist."""
    command = ["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
               "--exclude-standard"]
    try:
        listing = subprocess.run(command, check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError) as error:
        raise BuildError(f"tetrad: build_sdist lists the sources with git, which failed in "
                         f"{root} ({error}); build a wheel instead (pip wheel .)") from None
    names = sorted({n for n in listing.decode("utf-8").split("\0") if n})
    return [n for n in names if (root / n).is_file() and not (root / n).is_symlink()]


def build_sdist(sdist_directory, config_settings=None):
    root = _root()
    name, version, metadata = _metadata(root)
    base = f"{name}-{version}"
    Path(sdist_directory).mkdir(parents=True, exist_ok=True)
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    path = Path(sdist_directory) / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz", format=tarfile.PAX_FORMAT) as tar:
        for relative in _sdist_files(root):
            tar.add(root / relative, arcname=f"{base}/{relative}", recursive=False)
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = metadata.encode("utf-8")
        info.size, info.mtime, info.mode = len(data), epoch, 0o644
        tar.addfile(info, io.BytesIO(data))
    return f"{base}.tar.gz"
