#!/usr/bin/env bash
# The library, the tool, the test suites and the benchmarks (RelWithDebInfo).
set -euo pipefail
cd "$CUABI_ROOT"
cmake -S . -B "$CUABI_BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDAToolkit_ROOT="$CUDA_HOME"
cmake --build "$CUABI_BUILD_DIR" -j "$CUABI_JOBS"
