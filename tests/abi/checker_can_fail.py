#!/usr/bin/env python3
"""The ABI checks can fail: each is run on deliberately broken variants of a small library.

A checker that never fails proves nothing. This test writes a toy library in cuabi's style
(CUABI_API functions, PFN_ typedefs, an options struct, a version script, a SONAME), dumps its
baseline with the same abi/abi_check.py the real test uses, then rebuilds variants in a
temporary directory and asserts what each check says about them:

  abi_check.py compare   rejects a removed function, a changed parameter type, a reordered
                         struct field and a function added to a released version node; accepts
                         a function added in a new node (and names it), a renamed parameter,
                         and any change once the SONAME's major changes.
                         It reads a Release build's separate debug info file through the
                         library's .gnu_debuglink, and fails a library with no debug info at all.
  layout.py check        rejects the reordered field, naming it.
  layout.py check-release  accepts a grown struct_size struct, rejects a moved or removed field.
  check_symbols.py       rejects a function missing from the header, naming it.
  header_lint.py         rejects a bit-field, a struct passed by value and a constant that is not
                         a literal.
  header_compile.py      rejects implicit padding (-Wpadded), which the reordered field creates.
  installed_header.py    rejects a scaffolding marker and a reference to a document that is not
                         installed, and accepts one that is.

Environment: CUABI_ABI_DIR (the abi/ folder), CC (the C compiler; default cc).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ABI_DIR = os.environ.get("CUABI_ABI_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "abi"))
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, ABI_DIR)
import abi_tools  # noqa: E402

FIELDS = ["uint32_t struct_size", "uint32_t flags", "uint64_t capacity"]
FUNCTIONS = [
    ("void", "cuabi_widget_options_init", "cuabi_widget_options* options"),
    ("cuabi_status", "cuabi_widget_create", "const cuabi_widget_options* options, cuabi_widget** out_widget"),
    ("cuabi_status", "cuabi_widget_resize", "cuabi_widget* widget, uint32_t size"),
    ("void", "cuabi_widget_destroy", "cuabi_widget* widget"),
]
ADDED = ("cuabi_status", "cuabi_widget_count", "const cuabi_widget* widget, size_t* out_count")

HEADER = """#ifndef CUABI_H
#define CUABI_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif
#if defined(CUABI_BUILDING) && defined(__GNUC__)
#define CUABI_API __attribute__((visibility("default")))
#elif defined(CUABI_ABI_MODEL) && defined(__clang__)
#define CUABI_API __attribute__((annotate("cuabi:api")))
#else
#define CUABI_API
#endif
#define CUABI_ABI_VERSION %(major)d
%(defines)s
typedef int32_t cuabi_status;
typedef struct cuabi_widget cuabi_widget;
typedef struct cuabi_widget_options {
%(fields)s
} cuabi_widget_options;
#define CUABI_WIDGET_OPTIONS_INIT {sizeof(cuabi_widget_options), 0, 0}
#ifndef CUABI_NO_PROTOTYPES
%(prototypes)s
#endif
%(pfns)s
#ifdef __cplusplus
}
#endif
#endif
"""


def with_function(functions, name, params):
    return [(r, n, params if n == name else p) for r, n, p in functions]


def without_function(functions, name):
    return [f for f in functions if f[1] != name]


class ToyLibrary(object):
    """Writes header, source and map for one variant under `root` and builds libcuabi.so.<major>."""

    def __init__(self, root, functions=FUNCTIONS, fields=FIELDS, major=1, header_functions=None,
                 extra_header="", new_node=(), debug_info="inline", defines=""):
        self.root = root
        self.include = os.path.join(root, "include", "cuabi")
        os.makedirs(self.include)
        self.header = os.path.join(self.include, "cuabi.h")
        declared = functions if header_functions is None else header_functions
        with open(self.header, "w") as handle:
            handle.write(HEADER % {
                "major": major,
                "defines": defines,
                "fields": "\n".join("    %s;" % f for f in fields) + extra_header,
                "prototypes": "\n".join("CUABI_API %s %s(%s);" % f for f in declared),
                "pfns": "\n".join("typedef %s (*PFN_%s)(%s);" % f for f in declared)})
        self.map = os.path.join(root, "cuabi.map")
        with open(self.map, "w") as handle:
            handle.write("CUABI_1.0 {\n  global:\n%s\n  local:\n    *;\n};\n" % "\n".join(
                "    %s;" % name for name in sorted(n for _, n, _ in functions if n not in new_node)))
            if new_node:
                handle.write("CUABI_1.1 {\n  global:\n%s\n} CUABI_1.0;\n" % "\n".join(
                    "    %s;" % name for name in sorted(new_node)))
        source = os.path.join(root, "widget.c")
        with open(source, "w") as handle:
            handle.write('#include "cuabi/cuabi.h"\n')
            for result, name, params in functions:
                body = "" if result == "void" else "return 0;"
                handle.write("CUABI_API %s %s(%s) { %s }\n" % (result, name, params, body))
        self.library = os.path.join(root, "libcuabi.so.%d" % major)
        abi_tools.run([os.environ.get("CC", "cc"), "-g", "-O1", "-shared", "-fPIC",
                       "-fvisibility=hidden", "-DCUABI_BUILDING", "-I", os.path.join(root, "include"),
                       "-Wl,-soname,libcuabi.so.%d" % major, "-Wl,--version-script=" + self.map,
                       "-o", self.library, source])
        self.place_debug_info(debug_info)

    def place_debug_info(self, where):
        """inline: as built; separate: moved to a .debug file as cmake/SeparateDebugInfo.cmake does
        for Release; none: stripped without a link."""
        name = os.path.basename(self.library)
        if where == "separate":
            abi_tools.run(["objcopy", "--only-keep-debug", name, name + ".debug"], cwd=self.root)
            abi_tools.run(["objcopy", "--strip-debug", "--add-gnu-debuglink=" + name + ".debug", name],
                          cwd=self.root)
        elif where == "none":
            abi_tools.run(["objcopy", "--strip-debug", name], cwd=self.root)


def script(name, *args):
    result = subprocess.run([sys.executable, os.path.join(ABI_DIR, name)] + list(args),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    return result.returncode, result.stdout


class CheckersRejectBreakingChanges(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="cuabi-checker-")
        cls.base = ToyLibrary(os.path.join(cls.workdir, "base"))
        cls.baseline = os.path.join(cls.workdir, "cuabi.abi")
        code, output = script("abi_check.py", "dump", "--library", cls.base.library, "--headers-dir",
                              cls.base.include, "--source-root", cls.base.root, "--out", cls.baseline)
        assert code == 0, output
        cls.golden = os.path.join(cls.workdir, "layout.golden")
        code, output = script("layout.py", "generate", "--header", cls.base.header, "--cc",
                              os.environ.get("CC", "cc"), "--out", cls.golden)
        assert code == 0, output

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, ignore_errors=True)

    def variant(self, name, **kwargs):
        return ToyLibrary(os.path.join(self.workdir, name), **kwargs)

    def compare(self, toy):
        return script("abi_check.py", "compare", "--baseline", self.baseline, "--library",
                      toy.library, "--headers-dir", toy.include, "--source-root", toy.root)

    def assert_rejected(self, code, output, *names):
        self.assertNotEqual(code, 0, output)
        self.assertIn("FAIL", output)
        for name in names:
            self.assertIn(name, output)

    # --- abi_check.py compare -------------------------------------------------------------
    def test_unchanged_rebuild_passes_as_identical(self):
        code, output = self.compare(self.variant("same"))
        self.assertEqual(code, 0, output)
        self.assertIn("identical", output)

    def test_removed_function_is_rejected(self):
        toy = self.variant("removed", functions=without_function(FUNCTIONS, "cuabi_widget_resize"))
        self.assert_rejected(*self.compare(toy), "cuabi_widget_resize", "incompatible")

    def test_changed_parameter_type_is_rejected(self):
        toy = self.variant("param", functions=with_function(
            FUNCTIONS, "cuabi_widget_resize", "cuabi_widget* widget, uint64_t size"))
        self.assert_rejected(*self.compare(toy), "cuabi_widget_resize")

    def test_reordered_struct_field_is_rejected(self):
        toy = self.variant("reordered", fields=[FIELDS[0], FIELDS[2], FIELDS[1]])
        self.assert_rejected(*self.compare(toy), "cuabi_widget_options")

    def test_field_appended_to_a_struct_size_struct_passes(self):
        toy = self.variant("grown", fields=FIELDS + ["uint64_t extra"])
        code, output = self.compare(toy)
        self.assertEqual(code, 0, output)
        self.assertIn("only additions", output)

    def test_field_inserted_before_the_end_of_a_struct_size_struct_is_rejected(self):
        toy = self.variant("inserted", fields=[FIELDS[0], "uint32_t extra", FIELDS[1], FIELDS[2]])
        self.assert_rejected(*self.compare(toy), "cuabi_widget_options")

    def test_added_function_in_a_new_version_node_passes_and_is_reported(self):
        toy = self.variant("added", functions=FUNCTIONS + [ADDED], new_node=[ADDED[1]])
        code, output = self.compare(toy)
        self.assertEqual(code, 0, output)
        self.assertIn("cuabi_widget_count@@CUABI_1.1", output)
        self.assertIn("only additions", output)

    def test_added_function_in_a_released_version_node_is_rejected(self):
        toy = self.variant("added_old_node", functions=FUNCTIONS + [ADDED])
        self.assert_rejected(*self.compare(toy), "cuabi_widget_count was added to CUABI_1.0")

    def test_renamed_parameter_passes(self):
        toy = self.variant("renamed", functions=with_function(
            FUNCTIONS, "cuabi_widget_resize", "cuabi_widget* widget, uint32_t new_size"))
        code, output = self.compare(toy)
        self.assertEqual(code, 0, output)

    def test_release_build_is_compared_through_its_separate_debug_info(self):
        toy = self.variant("release", debug_info="separate")
        code, output = self.compare(toy)
        self.assertEqual(code, 0, output)
        self.assertIn("identical", output)
        changed = self.variant("release_param", debug_info="separate", functions=with_function(
            FUNCTIONS, "cuabi_widget_resize", "cuabi_widget* widget, uint64_t size"))
        self.assert_rejected(*self.compare(changed), "cuabi_widget_resize")

    def test_library_without_debug_info_fails_saying_why(self):
        self.assert_rejected(*self.compare(self.variant("stripped", debug_info="none")), "no DWARF debug info")
        toy = self.variant("lost_debug_file", debug_info="separate")
        os.remove(toy.library + ".debug")
        self.assert_rejected(*self.compare(toy), "libcuabi.so.1.debug, which is not beside it")

    def test_removed_function_passes_when_the_abi_major_changes(self):
        toy = self.variant("major", major=2,
                           functions=without_function(FUNCTIONS, "cuabi_widget_resize"))
        code, output = self.compare(toy)
        self.assertEqual(code, 0, output)
        self.assertIn("ABI major changed", output)

    # --- the other checkers -----------------------------------------------------------------
    def test_layout_check_names_the_moved_field(self):
        toy = self.variant("layout", fields=[FIELDS[0], FIELDS[2], FIELDS[1]])
        code, output = script("layout.py", "check", "--header", toy.header, "--cc",
                              os.environ.get("CC", "cc"), "--golden", self.golden)
        self.assert_rejected(code, output, "field cuabi_widget_options.flags changed: offset=4",
                             "struct cuabi_widget_options changed: size=16")

    def test_layout_check_rejects_a_field_missing_from_the_golden(self):
        toy = self.variant("appended", fields=FIELDS + ["uint32_t extra"])
        code, output = script("layout.py", "check", "--header", toy.header, "--cc",
                              os.environ.get("CC", "cc"), "--golden", self.golden)
        self.assert_rejected(code, output, "cuabi_widget_options.extra", "not in layout.golden")

    def test_release_layout_check_allows_growth_and_names_a_moved_field(self):
        def check_release(toy):
            return script("layout.py", "check-release", "--header", toy.header, "--cc",
                          os.environ.get("CC", "cc"), "--golden", self.golden)
        code, output = check_release(self.variant("release_grown", fields=FIELDS + ["uint64_t extra"]))
        self.assertEqual(code, 0, output)
        code, output = check_release(self.variant("release_moved", fields=[FIELDS[0], FIELDS[2], FIELDS[1]]))
        self.assert_rejected(code, output, "field cuabi_widget_options.flags was offset=4")
        code, output = check_release(self.variant("release_shrunk", fields=FIELDS[:2] + ["uint32_t small", "uint32_t pad"]))
        self.assert_rejected(code, output, "field cuabi_widget_options.capacity of layout.golden is no longer in the header")

    def test_symbol_check_names_a_function_missing_from_the_header(self):
        toy = self.variant("undeclared", header_functions=without_function(FUNCTIONS, "cuabi_widget_resize"))
        code, output = script("check_symbols.py", "--header", toy.header, "--map", toy.map,
                              "--library", toy.library)
        self.assert_rejected(code, output, "cuabi_widget_resize is in the map and the library (nm -D) "
                                           "but not in the header")

    def test_lint_rejects_bit_fields_and_structs_by_value(self):
        toy = self.variant("lint", extra_header="\n    uint32_t small : 3;", functions=FUNCTIONS + [
            ("cuabi_status", "cuabi_widget_apply", "cuabi_widget* widget, cuabi_widget_options options")])
        code, output = script("header_lint.py", toy.header)
        self.assert_rejected(code, output, "bit-field: cuabi_widget_options.small",
                             "by-value: parameter 'options' of cuabi_widget_apply")

    def test_lint_rejects_constants_that_are_not_literals(self):
        toy = self.variant("literals", defines="#define CUABI_WIDGET_MAX UINT64_MAX\n"
                           "#define CUABI_WIDGET_BIG (1u << 3)\n#define CUABI_WIDGET_HUGE 3000000000\n"
                           "#define CUABI_WIDGET_FLAG 0x8u\n#define CUABI_WIDGET_KIND -7")
        code, output = script("header_lint.py", toy.header)
        self.assert_rejected(code, output, "literal: CUABI_WIDGET_MAX is 'UINT64_MAX'",
                             "literal: CUABI_WIDGET_BIG is '(1u << 3)'", "CUABI_WIDGET_HUGE is 3000000000, outside int32_t")
        self.assertNotIn("CUABI_WIDGET_FLAG", output)
        self.assertNotIn("CUABI_WIDGET_KIND", output)

    def test_header_compile_rejects_implicit_padding(self):
        code, output = script("header_compile.py", "--include-dir", self.base.include + "/..",
                              "--compiler", "gcc", "--std", "c99")
        self.assertEqual(code, 0, output)
        toy = self.variant("padded", fields=[FIELDS[0], FIELDS[2], FIELDS[1]])
        code, output = script("header_compile.py", "--include-dir", os.path.dirname(toy.include),
                              "--compiler", "gcc", "--std", "c99")
        self.assert_rejected(code, output, "padding struct to align", "capacity", "padded]")

    def test_installed_header_check_rejects_scaffolding_and_missing_documents(self):
        prefix = os.path.join(self.workdir, "installed")
        docdir = os.path.join(prefix, "share", "doc", "cuabi")
        os.makedirs(os.path.join(prefix, "include", "cuabi"))
        os.makedirs(docdir)
        open(os.path.join(docdir, "errors.md"), "w").close()
        header = os.path.join(prefix, "include", "cuabi", "cuabi.h")

        def check(text):
            with open(header, "w") as handle:
                handle.write(text)
            return script("installed_header.py", "--prefix", prefix)

        code, output = check("/* Statuses: share/doc/cuabi/errors.md; background in errors.md. */\n")
        self.assertEqual(code, 0, output)
        code, output = check("/* @@types:module@@ (insert above) */\n/* see share/doc/cuabi/cache.md, "
                             "device.md and docs/errors.md */\n")
        self.assert_rejected(code, output, "cuabi.h:1: scaffolding", "cuabi.h:2: reference: share/doc/cuabi/cache.md "
                             "is not installed", "device.md is not installed", "docs/errors.md is a path in the source tree")


if __name__ == "__main__":
    abi_tools.require_tool("abidw", "dump the toy library's ABI")
    abi_tools.require_tool("abidiff", "compare the toy library's ABI")
    unittest.main(verbosity=2)
