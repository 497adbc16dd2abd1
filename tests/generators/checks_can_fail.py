#!/usr/bin/env python3
"""The generators checks can fail: each part is run on inputs that must be rejected.

  compare()          names a line a generator did not report, one with another value or type,
                     and one the header does not declare
  Expected           rejects a constant that is not a literal and a decimal one beyond int32_t
                     (generators would drop or mistype them)
  the cffi probe     on a copy of the installed header with a struct C packs (#pragma pack,
                     which cffi's cdef never sees): the field cffi places elsewhere is named
  untranslated()     flags zig translate-c's @compileError for a cuabi.h declaration, not for an
                     initializer (C only) or a libc macro

usage: checks_can_fail.py --prefix P --work-dir W --source-dir S [--cc CC] [--libdir lib]
                          [--includedir include]      (P: an install tree)
"""
import argparse
import os
import shutil
import sys
import unittest

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import expected as ex  # noqa: E402
import probe_cffi  # noqa: E402
import probe_zig  # noqa: E402
from tool import Context  # noqa: E402

ARGS = None


def doctored_prefix(name, insert_before_end):
    """A copy of the install tree whose header has `insert_before_end` before its closing
    extern "C" block; the library directory is the original's."""
    root = os.path.join(ARGS.work_dir, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, ARGS.includedir, "cuabi"))
    os.makedirs(os.path.dirname(os.path.join(root, ARGS.libdir)), exist_ok=True)
    os.symlink(os.path.join(ARGS.prefix, ARGS.libdir), os.path.join(root, ARGS.libdir))
    with open(os.path.join(ARGS.prefix, ARGS.includedir, "cuabi", "cuabi.h")) as handle:
        text = handle.read()
    closing = text.rindex("#ifdef __cplusplus")
    with open(os.path.join(root, ARGS.includedir, "cuabi", "cuabi.h"), "w") as handle:
        handle.write(text[:closing] + insert_before_end + "\n" + text[closing:])
    return Context(root, os.path.join(root, "work"), ARGS.cc, ARGS.source_dir, ARGS.libdir, ARGS.includedir)


class Compare(unittest.TestCase):
    def test_missing_different_and_undeclared_lines_are_named(self):
        wanted = {("struct", "cuabi_a"): "size=8", ("constant", "CUABI_B"): "value=1 type=i32",
                  ("pfn", "PFN_cuabi_c"): ""}
        seen = {("struct", "cuabi_a"): "size=12", ("constant", "CUABI_B"): "value=1 type=u32",
                ("function", "cuabi_d"): ""}
        problems = "\n".join(ex.compare("gen", wanted, seen))
        self.assertIn("gen: struct cuabi_a is 'size=12', C says 'size=8'", problems)
        self.assertIn("gen: constant CUABI_B is 'value=1 type=u32', C says 'value=1 type=i32'", problems)
        self.assertIn("gen: pfn PFN_cuabi_c is missing", problems)
        self.assertIn("gen reported function cuabi_d, which the header does not declare", problems)
        self.assertEqual(ex.compare("gen", wanted, dict(wanted)), [])

    def test_report_lines_are_parsed_by_kind_and_name(self):
        seen = ex.parse_report("noise\nstruct cuabi_a size=8\nfield cuabi_a.b offset=4\npfn PFN_cuabi_c\n")
        self.assertEqual(seen, {("struct", "cuabi_a"): "size=8", ("field", "cuabi_a.b"): "offset=4",
                                ("pfn", "PFN_cuabi_c"): ""})


class ExpectedConstants(unittest.TestCase):
    def test_constants_that_are_not_literals_are_rejected(self):
        ctx = doctored_prefix("constants", "#define CUABI_DOCTORED_MASK (1u << 3)\n"
                                           "#define CUABI_DOCTORED_BIG 3000000000\n")
        problems = "\n".join(ex.Expected(ctx.header, ARGS.cc).problems)
        self.assertIn("CUABI_DOCTORED_MASK is '(1u << 3)', not a literal", problems)
        self.assertIn("CUABI_DOCTORED_BIG is a decimal literal, so bindings type it int32_t, but C makes "
                      "it a 8-byte signed value", problems)


class CffiProbe(unittest.TestCase):
    def test_a_struct_laid_out_differently_from_c_is_named(self):
        ctx = doctored_prefix("packed", "#pragma pack(push, 1)\ntypedef struct cuabi_doctored {\n"
                                        "    uint8_t tag;\n    uint32_t value;\n} cuabi_doctored;\n#pragma pack(pop)\n")
        os.makedirs(ctx.work_dir)
        expected = ex.Expected(ctx.header, ARGS.cc)
        self.assertEqual(expected.problems, [])
        text, problems = probe_cffi.run(expected, ctx)
        problems += ex.compare("cffi", expected.lines(probe_cffi.KINDS, probe_cffi.TYPED_CONSTANTS),
                               ex.parse_report(text))
        self.assertEqual(problems, ["cffi: field cuabi_doctored.value is 'offset=4', C says 'offset=1'",
                                    "cffi: struct cuabi_doctored is 'size=8', C says 'size=5'"])


class ZigTranslation(unittest.TestCase):
    def test_untranslated_declarations_of_the_header_are_named(self):
        expected = ex.Expected(os.path.join(ARGS.prefix, ARGS.includedir, "cuabi", "cuabi.h"), ARGS.cc)
        translation = "\n".join([
            'pub const CUABI_LAUNCH_CONFIG_INIT = @compileError("unable to translate C expr: unexpected token \'{\'");',
            'pub const CUABI_DOCTORED = @compileError("unable to translate macro: undefined identifier `X`");',
            'pub const __INT64_C_SUFFIX__ = @compileError("unable to translate macro: undefined identifier `L`");',
            "pub const CUABI_SUCCESS = @as(c_int, 0);"])
        self.assertEqual(probe_zig.untranslated(translation, expected), [
            'zig translate-c could not translate CUABI_DOCTORED: "unable to translate macro: undefined '
            'identifier `X`"'])


def main():
    global ARGS
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--prefix", required=True)
    parser.add_argument("--work-dir", required=True)
    parser.add_argument("--source-dir", required=True)
    parser.add_argument("--cc", default="cc")
    parser.add_argument("--libdir", default="lib")
    parser.add_argument("--includedir", default="include")
    ARGS, rest = parser.parse_known_args()
    os.makedirs(ARGS.work_dir, exist_ok=True)
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)


if __name__ == "__main__":
    main()
