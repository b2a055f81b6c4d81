#!/usr/bin/env bash
# Sets up a Debian 12 machine for offlab: system packages, a Python virtual
# environment (.venv) with the offlab package and its development tools, and
# the C++ build (build/), which the package's C++ parts are taken from. Safe to
# run again: finished steps are skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

APT_PACKAGES=(
  build-essential cmake ninja-build git pkg-config
  libgtest-dev libyaml-cpp-dev libjemalloc-dev
  ns3 libns3-dev libgsl-dev
  dpdk dpdk-dev libdpdk-dev
  clang libclang-rt-14-dev clang-format
  tshark
  iproute2 nftables
  chromium chromium-driver
  python3 python3-venv python3-dev
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || die "not root and sudo is missing: install ${APT_PACKAGES[*]}"
  SUDO="sudo"
fi

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  say "installing system packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null || die "apt-get update failed"
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null \
    || die "apt-get install failed for: ${missing[*]}"
else
  say "system packages present"
fi

# Open vSwitch for `offlab ovs-diff` (python/offlab/ovsdiff): its daemons run only
# inside the harness's private sandbox, so the package's own service must not start.
# A policy-rc.d that refuses every start covers the install, and is removed after
# (one that was already there is left as it was).
if ! dpkg-query -W -f='${Status}' openvswitch-switch 2>/dev/null | grep -q "install ok installed"; then
  say "installing openvswitch-switch (its service is not started)"
  policy=/usr/sbin/policy-rc.d
  own_policy=""
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee "$policy" >/dev/null && $SUDO chmod 755 "$policy"
    own_policy=1
    trap '$SUDO rm -f "$policy"' EXIT
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q >/dev/null || die "apt-get update failed"
  $SUDO apt-get install -y -q --no-install-recommends openvswitch-switch >/dev/null \
    || die "apt-get install failed for: openvswitch-switch"
  if [ -n "$own_policy" ]; then $SUDO rm -f "$policy"; trap - EXIT; fi
fi

if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  python3 -m venv .venv || die "python3 -m venv failed (is python3-venv installed?)"
fi

# The C++ tree is compiled once, in build/: the C++ tests, the programs and the
# Python module offlab._core (for the .venv's Python, with pybind11 from the
# .venv). The package installed into .venv below takes its module and programs
# from there (cmake/install-prebuilt.cmake) instead of compiling them again.
if ! .venv/bin/python -c 'import pybind11' 2>/dev/null; then
  say "installing pybind11 into .venv (for the C++ module)"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null || die "pip upgrade failed"
  .venv/bin/python -m pip install -q "pybind11>=2.12" || die "pip install of pybind11 failed"
fi
pybind11_dir=$(.venv/bin/python -m pybind11 --cmakedir) || die "pybind11 has no CMake directory"

say "building the C++ tree in build/"
cmake -S . -B build -G Ninja -DOFFLAB_WERROR=ON -DOFFLAB_HARDEN=ON -DOFFLAB_BUILD_PYTHON=ON \
  -DPython_EXECUTABLE="$PWD/.venv/bin/python" -Dpybind11_DIR="$pybind11_dir" >/dev/null \
  || die "cmake configure failed"
cmake --build build >/dev/null || die "C++ build failed (run: cmake --build build)"

# Reinstall the package only when its sources changed since the last install.
stamp=.venv/.offlab-installed
digest=$(git ls-files -s -- pyproject.toml CMakeLists.txt cmake models python sim verify hw-replay 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ -z "$(git status --porcelain -- pyproject.toml CMakeLists.txt cmake models python sim verify hw-replay 2>/dev/null)" ] \
   && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$digest" ]; then
  say "offlab package up to date"
else
  say "installing the offlab package into .venv (its C++ parts from build/)"
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null || die "pip upgrade failed"
  .venv/bin/python -m pip install -q \
    --config-settings=cmake.define.OFFLAB_PREBUILT_DIR="$PWD/build" ".[dev]" \
    || die "pip install of offlab failed"
  echo "$digest" > "$stamp"
fi
say "done"
