#!/usr/bin/env bash
# The text to give Python cffi's ffi.cdef() for cuabi.h: the documented preprocessing
# (docs/abi-policy.md) that the generators test also uses.
#
#   scripts/cffi-cdef.sh [HEADER] > cuabi_cdef.h
#   python3 -c 'import cffi; ffi = cffi.FFI(); ffi.cdef(open("cuabi_cdef.h").read()); \
#               lib = ffi.dlopen("libcuabi.so.1"); print(lib.cuabi_version_number())'
#
# cffi parses declarations but runs no preprocessor, and it knows size_t and the <stdint.h> types
# itself. So the C preprocessor runs first, with empty stand-ins for <stddef.h> and <stdint.h>:
# it resolves the include guard, the C++ and CUABI_API blocks, and keeps the prototypes (no
# CUABI_NO_PROTOTYPES). -dD keeps the #define lines in its output; of those only the integer
# constants stay (cffi reads `#define X 42`, `0x1u` and `-1`). Dropped: CUABI_VERSION_STRING
# (cffi has no string constants: call cuabi_version_number()) and the CUABI_*_INIT initializers
# (C only: call the struct's _init() function).
set -euo pipefail
header="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/include/cuabi/cuabi.h}"
[[ -f "$header" ]] || { echo "cffi-cdef.sh: no header at $header" >&2; exit 1; }
stubs=$(mktemp -d)
trap 'rm -rf "$stubs"' EXIT
touch "$stubs/stddef.h" "$stubs/stdint.h"

"${CC:-cc}" -E -P -dD -undef -nostdinc -I"$stubs" -I"$(dirname "$(dirname "$header")")" "$header" |
  grep -E '^[^#]|^#define CUABI_[A-Z0-9_]+ -?(0[xX][0-9A-Fa-f]+|[0-9]+)[uU]?$'
