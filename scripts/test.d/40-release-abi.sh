#!/usr/bin/env bash
# The ABI checks on a Release build (the `release` preset): its library carries no debug info, so
# the check reads the separate libcuabi.so.X.Y.Z.debug file the build writes beside it
# (cmake/SeparateDebugInfo.cmake). Only the library and the ABI suite's probe are built here;
# `ctest --preset release` runs everything on a full Release build.
set -euo pipefail
cd "$CUABI_ROOT"
cmake --preset release -DCUDAToolkit_ROOT="$CUDA_HOME" >/dev/null
cmake --build --preset release -j "$CUABI_JOBS" --target cuabi cuabi_dlopen_probe
ctest --preset release -L abi -j "$CUABI_JOBS"
