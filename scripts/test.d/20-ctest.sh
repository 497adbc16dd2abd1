#!/usr/bin/env bash
# Every ctest label: unit, gpu (skips with the driver's reason without a GPU), abi, packaging, docs.
set -euo pipefail
ctest --test-dir "$CUABI_BUILD_DIR" --output-on-failure -j "$CUABI_JOBS"
