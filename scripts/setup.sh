#!/usr/bin/env bash
# Installs what building and testing cuabi needs, only what is missing (idempotent), from
# Debian/Ubuntu's archive. The CUDA Toolkit (headers + NVRTC) must already be present; cuabi
# needs it at build time only.
set -euo pipefail

# Debian package  -> a file or command that proves it is installed
declare -A wanted=(
  [cmake]=/usr/bin/cmake
  [ninja-build]=/usr/bin/ninja
  [g++]=/usr/bin/g++
  [clang]=/usr/bin/clang
  [pkg-config]=/usr/bin/pkg-config
  [libgtest-dev]=/usr/include/gtest/gtest.h
  [abigail-tools]=/usr/bin/abidw
  [python3]=/usr/bin/python3
  [bindgen]=/usr/bin/bindgen
  [golang-go]=/usr/bin/go
)

missing=()
for package in "${!wanted[@]}"; do
  [[ -e "${wanted[$package]}" ]] || missing+=("$package")
done
# The Rust binding needs a toolchain; one from rustup (~/.cargo/bin) serves as well as Debian's.
command -v cargo >/dev/null || missing+=(cargo)

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  if ! { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"; }; then
    echo "setup: WARNING: could not install ${missing[*]} (no package archive reachable?)." >&2
    echo "setup: tests that need them will say so." >&2
  fi
else
  echo "setup: build and test tools present"
fi

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
