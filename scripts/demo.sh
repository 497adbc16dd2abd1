#!/usr/bin/env bash
# The main job: sets up, builds, and runs `cuabi demo` (compile, cache, launch and graph end to
# end). Without a GPU it compiles and caches, then says what needs a GPU.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
export CUDA_HOME="${CUDA_HOME:-/usr/local/cuda}"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$CUDA_HOME" >/dev/null
cmake --build build -j "$(nproc)" --target cuabi_cli
./build/src/cli/cuabi demo "$@"
