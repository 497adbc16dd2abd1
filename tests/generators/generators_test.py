#!/usr/bin/env python3
"""The binding generators on the installed cuabi.h (label generators).

  install   cmake --install into an emptied prefix: the header under test is the one users get
  bindgen   Debian's bindgen through scripts/bindgen.sh, compiled and run with cargo
  cgo       Debian's go: a cgo program built against the installed pkg-config file
  zig       zig translate-c (PyPI ziglang), then a Zig program over the translation
  cffi      Python cffi in ABI mode over scripts/cffi-cdef.sh's text

Each generator step asserts that the generator and the compiler of its language print no warning,
and that everything the header declares arrives with C's numbers: every struct's size and field
offsets, every integer constant's value and, where the language types constants, its type
(decimal literals int32, u-suffixed ones unsigned), every PFN_ typedef and, where the generator
reads prototypes, every function. expected.py derives the lists from the header and measures the
numbers with the C compiler; probe_<generator>.py says what each probe does.

A missing generator fails with "run scripts/setup.sh", or is skipped with CUABI_ABI_TOOLS_OPTIONAL=1.
"""
import argparse
import os
import shutil
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected as ex  # noqa: E402
import probe_bindgen  # noqa: E402
import probe_cffi  # noqa: E402
import probe_cgo  # noqa: E402
import probe_zig  # noqa: E402
from tool import Context, ProbeFailure, abi_tools  # noqa: E402

PROBES = {"bindgen": probe_bindgen, "cgo": probe_cgo, "zig": probe_zig, "cffi": probe_cffi}


def install(args):
    shutil.rmtree(args.prefix, ignore_errors=True)
    abi_tools.run([args.cmake, "--install", args.build_dir, "--prefix", args.prefix])
    return "installed into %s" % args.prefix


def check(args):
    probe = PROBES[args.step]
    ctx = Context(args.prefix, os.path.join(args.work_dir, args.step), args.cc, args.source_dir,
                  args.libdir, args.includedir)
    if not os.path.isfile(ctx.header):
        abi_tools.report(["no installed header at %s. Fix: run the generators.install test first "
                          "(ctest -L generators runs it as a fixture)" % ctx.header], "")
    expected = ex.Expected(ctx.header, args.cc)
    if expected.problems:
        abi_tools.report(expected.problems, "")
    os.makedirs(ctx.work_dir, exist_ok=True)
    try:
        text, problems = probe.run(expected, ctx)
    except ProbeFailure as failure:
        abi_tools.report([str(failure)], "")
    wanted = expected.lines(probe.KINDS, probe.TYPED_CONSTANTS)
    problems += ex.compare(args.step, wanted, ex.parse_report(text))
    counts = {}
    for kind, _ in wanted:
        counts[kind] = counts.get(kind, 0) + 1
    abi_tools.report(problems, "%s sees the installed cuabi.h as C does, without warnings: %s" % (
        args.step, ", ".join("%d %s" % (n, kind) for kind, n in sorted(counts.items()))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=["install"] + sorted(PROBES))
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--build-dir")
    parser.add_argument("--cmake", default="cmake")
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--includedir", default="include")
    args = parser.parse_args()
    if args.step == "install":
        print("OK: " + install(args))
    else:
        check(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
