#!/usr/bin/env bash
# The conformance scenario in every language (scripts/conformance.sh): each transcript identical
# to the C reference's. The parts before this one build the implementations into
# $CUABI_BUILD_DIR/conformance/bin/; every language listed here must be there.
set -euo pipefail
cd "$CUABI_ROOT"
CUABI_CONFORMANCE_REQUIRE="${CUABI_CONFORMANCE_REQUIRE:-c rust go zig python}" bash scripts/conformance.sh "$CUABI_BUILD_DIR"
