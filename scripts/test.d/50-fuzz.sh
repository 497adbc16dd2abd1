#!/usr/bin/env bash
# The image checks (src/image) under libFuzzer with AddressSanitizer and UBSan, for a bounded time
# (CUABI_FUZZ_SECONDS, default 60), from the committed seeds in tests/fuzz/corpus. New inputs go to
# a scratch directory, so the committed corpus only changes on purpose. Needs clang.
set -euo pipefail
cd "$CUABI_ROOT"
seconds="${CUABI_FUZZ_SECONDS:-60}"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUABI_BUILD_FUZZ=ON \
  -DCUABI_BUILD_TESTS=OFF -DCUABI_BUILD_CLI=OFF -DCUABI_BUILD_BENCH=OFF -DCUDAToolkit_ROOT="$CUDA_HOME"
cmake --build build-fuzz -j "$CUABI_JOBS" --target cuabi_image_fuzz
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
build-fuzz/tests/fuzz/cuabi_image_fuzz -max_total_time="$seconds" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
  -print_final_stats=1 "$scratch" tests/fuzz/corpus
