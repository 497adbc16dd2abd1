"""cgo (Debian's go, 1.19) on the installed header, found through the installed cuabi.pc.

A generated Go program imports "C" with `#cgo pkg-config: cuabi` and prints unsafe.Sizeof and
unsafe.Offsetof of every struct and field, every constant, the version string, and for every
function that cgo saw its PFN_ type and its prototype. cgo makes #define'd integers untyped Go
constants, so each is assigned to a variable of its C type first (int32 for a decimal literal,
uint32 / uint64 for a u-suffixed one): a value that does not fit, such as a flag cgo turned
negative, does not compile. Taking each function's address makes the linker resolve it in the
installed libcuabi.so, so a declared but unexported function fails too. Modules are off the
network (GOPROXY=off); GOCACHE and GOPATH live in the work directory.
"""
import os

import expected as ex
from tool import require, run_clean, write

KINDS = (ex.STRUCTS, ex.CONSTANTS, ex.STRINGS, ex.PFNS, ex.FUNCTIONS)
TYPED_CONSTANTS = False  # untyped Go constants: the value is compared, the type is compiled

GO_KEYWORDS = set("""break default func interface select case defer go map struct chan else goto
package switch const fallthrough if range type continue for import return var""".split())
GO_TYPES = {"i32": "int32", "u32": "uint32", "u64": "uint64"}


def field(name):
    """cgo renames a field that is a Go keyword with a leading underscore."""
    return "_" + name if name in GO_KEYWORDS else name


def main_go(expected):
    lines = ["package main", "", "/*", "#cgo pkg-config: cuabi", "#include <cuabi/cuabi.h>", "*/",
             'import "C"', "", "import (", '\t"fmt"', '\t"unsafe"', ")", "", "func main() {"]
    for name, _, fields in expected.structs:
        lines.append("\t{")
        lines.append("\t\tvar v C.%s" % name)
        lines.append('\t\tfmt.Printf("struct %s size=%%d\\n", unsafe.Sizeof(v))' % name)
        for member, _ in fields:
            lines.append('\t\tfmt.Printf("field %s.%s offset=%%d\\n", unsafe.Offsetof(v.%s))'
                         % (name, member, field(member)))
        lines.append("\t}")
    for name, _, kind in expected.integers:
        lines.append('\t{ var v %s = C.%s; fmt.Printf("constant %s value=%%d\\n", v) }'
                     % (GO_TYPES.get(kind, "int32"), name, name))
    for name, _ in expected.strings:
        lines.append('\tfmt.Printf("string %s value=%%s\\n", C.%s)' % (name, name))
    for name in expected.pfns:
        lines.append('\t{ var p C.%s; if p == nil { fmt.Println("pfn %s") } }' % (name, name))
    for name in expected.functions:
        lines.append('\tif unsafe.Pointer(C.%s) != nil { fmt.Println("function %s") }' % (name, name))
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(expected, ctx):
    go = require("go", "build the cgo probe (Debian package golang-go)")
    require("pkg-config", "find the installed cuabi for cgo")
    module = os.path.join(ctx.work_dir, "module")
    write(os.path.join(module, "go.mod"), "module cuabi_cgo_probe\n\ngo 1.19\n")
    write(os.path.join(module, "main.go"), main_go(expected))
    env = dict(os.environ, GOFLAGS="-mod=mod", GOPROXY="off", GO111MODULE="on", CGO_ENABLED="1",
               CC=ctx.cc, GOCACHE=os.path.join(ctx.work_dir, "go-cache"),
               GOPATH=os.path.join(ctx.work_dir, "go-path"),
               PKG_CONFIG_PATH=os.path.join(ctx.libdir, "pkgconfig"))
    binary = os.path.join(ctx.work_dir, "probe")
    built = run_clean([go, "build", "-o", binary, "."], "go build (cgo)", cwd=module, env=env)
    problems = ["go build printed: %s" % built.strip()] if built.strip() else []
    env["LD_LIBRARY_PATH"] = ctx.libdir
    return run_clean([binary], "the cgo probe", env=env), problems
