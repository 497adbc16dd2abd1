#!/usr/bin/env python3
"""Compiles the public header the way its users will: as C99/C11 or C++11/C++17, with gcc or
clang, under -Wall -Wextra -Werror -pedantic, and -Wpadded: a public struct with implicit padding
(between fields or at its tail) fails, because padding bytes have no name, so the rule that a
struct's unknown tail is zero could not be relied on and generators may lay them out differently.
Padding is written out as `reserved` fields instead. Two probes, generated from the header:

  prototypes      includes the header and, for every function, initializes a PFN_cuabi_x
                  pointer with &cuabi_x -- so each PFN_ typedef must have exactly its function's
                  type -- and, for every CUABI_*_INIT macro, initializes its struct, so the
                  macros compile warning-free in users' code.
  no-prototypes   defines CUABI_NO_PROTOTYPES first, then declares `typedef int cuabi_x;` for
                  every function: that only compiles if the header really hid every prototype,
                  while every PFN_ typedef and initializer must still be usable.

usage: header_compile.py --include-dir D --compiler gcc|clang --std c99|c11|c++11|c++17
"""
import argparse
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402
import model as abi_model  # noqa: E402

CXX = {"gcc": "g++", "clang": "clang++"}


def initializers(header):
    return ["%s probe_%s = %s;" % (s["name"], s["init_macro"], s["init_macro"])
            for s in header["structs"] if s["init_macro"]]


def prototypes_probe(header):
    lines = ['#include "cuabi/cuabi.h"']
    lines += ["PFN_%s probe_%s = &%s;" % (f, f, f) for f in (f["name"] for f in header["functions"])]
    return lines + initializers(header) + ["int main(void) { return 0; }"]


def no_prototypes_probe(header):
    lines = ["#define CUABI_NO_PROTOTYPES", '#include "cuabi/cuabi.h"']
    lines += ["typedef int %s;" % f for f in (f["name"] for f in header["functions"])]
    lines += ["PFN_%s probe_%s = 0;" % (f, f) for f in (f["name"] for f in header["functions"])]
    return lines + initializers(header) + ["int main(void) { return 0; }"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--include-dir", required=True)
    parser.add_argument("--compiler", choices=sorted(CXX), required=True)
    parser.add_argument("--std", choices=["c99", "c11", "c++11", "c++17"], required=True)
    args = parser.parse_args()
    is_cxx = args.std.startswith("c++")
    compiler = abi_tools.require_tool(CXX[args.compiler] if is_cxx else args.compiler,
                                      "compile the header as %s" % args.std)
    header, _ = abi_model.build(os.path.join(args.include_dir, "cuabi", "cuabi.h"))
    flags = ["-std=" + args.std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wpadded", "-fsyntax-only",
             "-I", args.include_dir, "-x", "c++" if is_cxx else "c"]
    if not is_cxx:
        flags.append("-Wstrict-prototypes")  # f() in C declares a function of unknown arguments
    workdir = tempfile.mkdtemp(prefix="cuabi-header-")
    problems = []
    try:
        for name, probe in (("prototypes", prototypes_probe), ("no-prototypes", no_prototypes_probe)):
            source = os.path.join(workdir, name + ".c")
            with open(source, "w") as handle:
                handle.write("\n".join(probe(header)) + "\n")
            result = abi_tools.run([compiler] + flags + [source], check=False)
            if result.returncode != 0:
                problems.append("the header does not compile cleanly as %s with %s (%s probe):\n%s%s"
                                % (args.std, compiler, name, result.stdout, result.stderr))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    abi_tools.report(problems, "cuabi.h compiles as %s with %s, with and without prototypes "
                     "(%d functions, %d initializers)" % (args.std, compiler, len(header["functions"]),
                                                        len(initializers(header))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
