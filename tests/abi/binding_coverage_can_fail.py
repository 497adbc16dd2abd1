#!/usr/bin/env python3
"""binding_coverage.py can fail: it is run on planted mistakes and must name each one.

  - a model with a function, a struct field and a constant no binding knows (what adding them to
    the header without touching the bindings looks like): every binding fails, naming all three;
  - a constant added to a family the bindings generate types for, with the generated files not
    regenerated: Go and Zig fail, naming it;
  - a copy of the bindings where the Rust crate, the Go shim and the Zig options no longer set
    cuabi_compile_options.salt_size: each binding fails, naming the field;
  - an exclusion without a reason, and one for something the binding reaches: both fail.

Each case runs the real checker on the real model (abi/cuabi_model.json) and binding source, or
on a copy of them in a temporary directory with the one change.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
CHECKER = os.path.join(HERE, "binding_coverage.py")
BINDINGS = ("rust", "go", "zig")


def model():
    with open(os.path.join(ROOT, "abi", "cuabi_model.json")) as f:
        return json.load(f)


def copy_bindings(into):
    """The binding source the checker reads, without build outputs."""
    ignore = shutil.ignore_patterns("target", ".zig-cache", "zig-out", "testdata", "bench", "examples")
    for binding in BINDINGS:
        shutil.copytree(os.path.join(ROOT, "bindings", binding), os.path.join(into, "bindings", binding), ignore=ignore)


class Coverage(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="cuabi-coverage-")
        self.addCleanup(shutil.rmtree, self.tmp)

    def check(self, model_data=None, root=ROOT, bindings=BINDINGS):
        path = os.path.join(ROOT, "abi", "cuabi_model.json")
        if model_data is not None:
            path = os.path.join(self.tmp, "model.json")
            with open(path, "w") as f:
                json.dump(model_data, f)
        command = [sys.executable, CHECKER, "--model", path, "--root", root]
        for binding in bindings:
            command += ["--binding", binding]
        return subprocess.run(command, capture_output=True, text=True)

    def assertFailsNaming(self, result, *lines):
        self.assertEqual(result.returncode, 1, result.stdout + result.stderr)
        for line in lines:
            self.assertIn(line, result.stdout)

    def test_the_real_bindings_pass(self):
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("OK: rust, go, zig reach all", result.stdout)

    def test_a_new_function_field_and_constant_fail_every_binding(self):
        planted = model()
        planted["functions"].append({"name": "cuabi_planted_function", "since": "1.2", "returns": "cuabi_status",
                                     "doc": "", "params": []})
        options = next(s for s in planted["structs"] if s["name"] == "cuabi_compile_options")
        options["fields"].append(dict(options["fields"][-1], name="planted_field"))
        planted["constants"].append({"name": "CUABI_PLANTED_CONSTANT", "value": 7, "type": "uint32_t",
                                     "family": None, "since": "1.2", "doc": ""})
        result = self.check(planted)
        for binding in BINDINGS:
            self.assertFailsNaming(result, "%s: the %s binding does not reach function cuabi_planted_function" % (binding, binding),
                                   "%s: the %s binding does not reach field cuabi_compile_options.planted_field" % (binding, binding),
                                   "%s: the %s binding does not reach constant CUABI_PLANTED_CONSTANT" % (binding, binding))

    def test_a_family_member_the_generated_files_lack_fails(self):
        planted = model()
        planted["constants"].append({"name": "CUABI_GRAPH_NODE_PLANTED", "value": 99, "type": "int32_t",
                                     "family": "cuabi_graph_node_kind", "since": "1.2", "doc": ""})
        result = self.check(planted, bindings=("go", "zig"))
        self.assertFailsNaming(result, "go: the go binding does not reach constant CUABI_GRAPH_NODE_PLANTED",
                               "zig: the zig binding does not reach constant CUABI_GRAPH_NODE_PLANTED")

    def test_a_field_the_source_no_longer_sets_fails(self):
        copy_bindings(self.tmp)
        edits = {"rust/cuabi/src/compile.rs": "salt_size", "go/shim.c": "salt_size", "zig/src/types.zig": "salt_size"}
        for path, word in edits.items():
            full = os.path.join(self.tmp, "bindings", path)
            with open(full) as f:
                text = f.read()
            self.assertIn(word, text, "%s no longer sets %s: update this test" % (path, word))
            with open(full, "w") as f:
                f.write(text.replace(word, "planted_rename"))
        result = self.check(root=self.tmp)
        for binding in BINDINGS:
            self.assertFailsNaming(result, "%s: the %s binding does not reach field cuabi_compile_options.salt_size" % (binding, binding))

    def test_an_exclusion_without_reason_or_for_a_reached_item_fails(self):
        copy_bindings(self.tmp)
        exclusions = os.path.join(self.tmp, "bindings", "go", "abi_exclusions.txt")
        with open(exclusions, "a") as f:
            f.write("constant CUABI_STRUCT_SIZE_MAX\nfunction cuabi_context_create -- planted: Go calls it\n")
        result = self.check(root=self.tmp, bindings=("go",))
        self.assertFailsNaming(result, "'constant CUABI_STRUCT_SIZE_MAX' is not `function|field|constant NAME -- REASON`",
                               "function cuabi_context_create is excluded but the binding reaches it")


if __name__ == "__main__":
    unittest.main(verbosity=2)
