#!/usr/bin/env bash
# The whole test suite: sets up what is missing, then runs every part in scripts/test.d/ in name
# order (build, every ctest label, sanitizer builds, fuzzing, the bindings, the conformance
# runner). A part that fails stops the run. GPU tests skip with a reason on a machine without a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh

export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
export CUABI_ROOT="$root"
export CUABI_BUILD_DIR="$root/build"
export CUABI_JOBS="$(nproc)"
for part in scripts/test.d/*.sh; do
  echo "== $(basename "$part" .sh) =="
  bash "$part"
done
