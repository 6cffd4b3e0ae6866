#!/bin/sh
# Installs the Debian packages tetrad needs. Idempotent: when everything is
# present it only runs dpkg-query and returns in well under a second.
#   scripts/setup.sh         what `make run` and `make test` need
#   scripts/setup.sh fuzz    plus clang and its libFuzzer runtime (`make fuzz`)
set -eu
# libopenblas0-openmp: LibTorch (and python3-torch) call the system BLAS
# (libblas.so.3); without an optimized one Debian falls back to the reference
# BLAS, whose sgemm took 75% of an MLP training run (4x slower end to end).
# The OpenMP variant follows LibTorch's thread settings.
PACKAGES="build-essential cmake ccache pkg-config libtorch-dev libopenblas0-openmp libopenmpi-dev openmpi-bin \
libsimgrid-dev libcli11-dev libtomlplusplus-dev nlohmann-json3-dev libfmt-dev libspdlog-dev \
zlib1g-dev gnuplot-nox googletest libgtest-dev libgmock-dev libbenchmark-dev dataset-fashion-mnist \
iproute2 nftables iperf3 iputils-ping \
pybind11-dev python3-dev python3-torch python3-numpy python3-pytest python3-pip"
if [ "${1:-}" = "fuzz" ]; then
  PACKAGES="$PACKAGES clang libclang-rt-14-dev"
fi
missing=""
for p in $PACKAGES; do
  if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0
echo "setup: installing$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $missing
