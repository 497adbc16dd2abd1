#!/usr/bin/env python3
"""Freezes the memory layout and constant values of the public header.

A binding built against 1.x hard-codes where each field of each struct lives and what each
constant is worth. This tool writes a C program from the header's declarations as the ABI model
reads them (abi/model.py: clang's parse) -- one line per struct, per field, per constant and per
CUABI_*_INIT initializer -- compiles it with the C compiler, runs it,
and compares the lines with a committed golden file:

  struct cuabi_x size=16 align=4
  field cuabi_x.flags offset=4 size=4 align=4
  constant CUABI_ERROR_CUDA value=30 size=4 signed
  constant CUABI_VERSION_STRING value="1.0.0"
  initializer CUABI_X_INIT bytes=10000000        (the initialized struct, up to its last non-zero byte)

Every difference is a failing line naming the struct.field or constant. So is a struct, field or
constant that is in the header but not in the golden file, so that a new one is frozen on
purpose the moment it is added (scripts/abi-baseline.sh regenerates the file).

check-release compares with a released layout (abi/baselines/layout-X.Y.golden) instead: what
that release froze must still hold -- every field's offset, size and alignment, every constant's
value (the CUABI_VERSION_* numbers of the header excepted), every struct, with a struct that
starts with struct_size allowed to grow -- while additions pass.

usage: layout.py generate --header H --cc CC --out GOLDEN
       layout.py check --header H --cc CC --golden GOLDEN
       layout.py check-release --header H --cc CC --golden abi/baselines/layout-X.Y.golden
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402
import model as abi_model  # noqa: E402

PRELUDE = r"""
#include <stddef.h>
#include <stdio.h>
#include "%(header)s"

#define IS_SIGNED(x) (((x) - (x) - 1) < 0)

static void number(const char* name, int is_signed, long long as_signed,
                   unsigned long long as_unsigned, size_t size) {
    if (is_signed)
        printf("constant %%s value=%%lld size=%%zu signed\n", name, as_signed, size);
    else
        printf("constant %%s value=%%llu size=%%zu unsigned\n", name, as_unsigned, size);
}

static void bytes(const char* name, const void* data, size_t size) {
    const unsigned char* p = (const unsigned char*)data;
    size_t used = size, i;
    while (used > 0 && p[used - 1] == 0) --used;
    printf("initializer %%s bytes=", name);
    for (i = 0; i < used; ++i) printf("%%02x", p[i]);
    printf("%%s\n", used == 0 ? "(all zero)" : "");
}

int main(void) {
"""


def program(model, header_path):
    lines = [PRELUDE % {"header": os.path.abspath(header_path)}]
    initializers = []
    for struct in model["structs"]:
        t = struct["name"]
        lines.append('    printf("struct %s size=%%zu align=%%zu\\n", sizeof(%s), _Alignof(%s));'
                     % (t, t, t))
        for field in struct["fields"]:
            member = "((%s*)0)->%s" % (t, field["name"])
            lines.append('    printf("field %s.%s offset=%%zu size=%%zu align=%%zu\\n", '
                         'offsetof(%s, %s), sizeof(%s), (size_t)__alignof__(%s));'
                         % (t, field["name"], t, field["name"], member, member))
        if struct["init_macro"]:
            initializers.append((struct["init_macro"], t))
    for constant in model["constants"]:
        name = constant["name"]
        if constant["type"] == "string":
            lines.append('    printf("constant %s value=\\"%%s\\"\\n", %s);' % (name, name))
        else:
            lines.append('    number("%s", IS_SIGNED(%s), (long long)(%s), (unsigned long long)(%s), '
                         'sizeof(%s));' % (name, name, name, name, name))
    for macro, struct in initializers:
        lines.append('    { static const %s v = %s; bytes("%s", &v, sizeof v); }' % (struct, macro, macro))
    lines.append("    return 0;\n}\n")
    return "\n".join(lines)


def measure(header_path, cc):
    """Runs the generated program and returns its lines."""
    model, _ = abi_model.build(header_path)  # release facts are not needed here
    source = program(model, header_path)
    workdir = tempfile.mkdtemp(prefix="cuabi-layout-")
    try:
        with open(os.path.join(workdir, "layout.c"), "w") as handle:
            handle.write(source)
        binary = os.path.join(workdir, "layout")
        abi_tools.run([cc, "-std=c11", "-o", binary, os.path.join(workdir, "layout.c")])
        return abi_tools.run([binary]).stdout.splitlines()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def keyed(lines):
    """'field cuabi_x.y offset=0 ...' -> {('field', 'cuabi_x.y'): 'offset=0 ...'}, in order."""
    result = {}
    for line in lines:
        if line.strip() and not line.startswith("#"):
            kind, name, rest = (line.split(None, 2) + ["", ""])[:3]
            result[(kind, name)] = rest
    return result


def compare(golden_lines, current_lines, golden_name):
    golden, current = keyed(golden_lines), keyed(current_lines)
    problems = []
    for key, now in current.items():
        kind, name = key
        if key not in golden:
            problems.append("%s %s is in the header but not in %s. Fix: if it is meant to be "
                            "public, freeze it with scripts/abi-baseline.sh and commit the result"
                            % (kind, name, golden_name))
        elif golden[key] != now:
            problems.append("%s %s changed: %s in %s, %s now. A 1.x binding relies on it "
                            ". Fix: restore it, or for an intended compatible change "
                            "(a field appended to a struct_size struct) refresh with "
                            "scripts/abi-baseline.sh" % (kind, name, golden[key], golden_name, now))
    for key in golden:
        if key not in current:
            problems.append("%s %s is in %s but no longer in the header: removing a public "
                            "struct, field or constant breaks 1.x users" % (key[0], key[1], golden_name))
    return problems


# The header's own version: a later release has other values by design.
VERSION_CONSTANTS = {"CUABI_VERSION_MINOR", "CUABI_VERSION_PATCH", "CUABI_VERSION_NUMBER",
                     "CUABI_VERSION_STRING"}


def compare_release(release_lines, current_lines, release_name):
    released, current = keyed(release_lines), keyed(current_lines)
    problems = []
    for (kind, name), then in released.items():
        now = current.get((kind, name))
        if kind == "initializer" or (kind == "constant" and name in VERSION_CONSTANTS):
            continue  # initializers hold sizeof, which grows; see VERSION_CONSTANTS
        if now is None:
            problems.append("%s %s of %s is no longer in the header: removing it breaks programs "
                            "built against that release" % (kind, name, release_name))
        elif kind == "struct" and ("field", name + ".struct_size") in current:
            size_then, size_now = (int(re.search(r"size=(\d+)", text).group(1)) for text in (then, now))
            if size_now < size_then or then.split()[1:] != now.split()[1:]:
                problems.append("struct %s was %s in %s, is %s now: a struct_size struct may only "
                                "grow. Fix: restore its fields" % (name, then, release_name, now))
        elif now != then:
            problems.append("%s %s was %s in %s, is %s now: programs built against that release "
                            "rely on it. Fix: restore it" % (kind, name, then, release_name, now))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["generate", "check", "check-release"])
    parser.add_argument("--header", required=True)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--golden")
    parser.add_argument("--out")
    args = parser.parse_args()
    cc = abi_tools.require_tool(args.cc, "compile the layout probe")
    try:
        current = measure(args.header, cc)
    except abi_model.ModelError as error:
        abi_tools.report([str(error)], "")
    if args.command == "generate":
        with open(args.out, "w") as handle:
            handle.write("# Layout of the public structs and values of the public constants of "
                         "include/cuabi/cuabi.h\n# (x86-64 / LP64). Checked by ctest -L abi; "
                         "regenerate only on purpose: scripts/abi-baseline.sh\n")
            handle.write("\n".join(current) + "\n")
        print("wrote %s (%d lines)" % (args.out, len(current)))
        return 0
    with open(args.golden) as handle:
        golden = handle.read().splitlines()
    if args.command == "check-release":
        abi_tools.report(compare_release(golden, current, os.path.basename(args.golden)),
                         "what %s froze holds (%d lines)" % (args.golden, len(keyed(golden))))
        return 0
    abi_tools.report(compare(golden, current, os.path.basename(args.golden)),
                     "%d struct/field/constant lines match %s" % (len(current), args.golden))
    return 0


if __name__ == "__main__":
    sys.exit(main())
