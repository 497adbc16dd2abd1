#!/usr/bin/env python3
"""The ABI model's checks and scripts/regenerate.sh --check can fail: each is run on a copy of the
real header (or of the source tree) with one mistake planted, and must name it.

  abi/model.py             refuses an out_* parameter without CUABI_OUT, a handle output without
                           ownership, a borrowed handle in an output struct without ownership, a
                           function whose CUABI_SINCE disagrees with abi/cuabi.map, a field whose
                           since disagrees with the release baselines, a struct_size struct with no
                           released size, and a constant that belongs to no family.
  abi/model.py check       names a committed model that no longer matches the header.
  scripts/regenerate.sh    --check names a stale generated file and a stale model, and passes on
                           the tree as committed.
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
HEADER = os.path.join(ROOT, "include", "cuabi", "cuabi.h")
MODEL_TOOL = os.path.join(ROOT, "abi", "model.py")


def run(args, cwd=None):
    result = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            universal_newlines=True, cwd=cwd)
    return result.returncode, result.stdout


class PlantedMistakes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.workdir = tempfile.mkdtemp(prefix="cuabi-model-")
        with open(HEADER) as handle:
            cls.header_text = handle.read()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.workdir, ignore_errors=True)

    def planted(self, old, new):
        """The model tool's verdict on the header with `old` replaced by `new` (exactly once)."""
        self.assertEqual(self.header_text.count(old), 1, old)
        directory = tempfile.mkdtemp(dir=self.workdir)
        os.makedirs(os.path.join(directory, "cuabi"))
        header = os.path.join(directory, "cuabi", "cuabi.h")
        with open(header, "w") as handle:
            handle.write(self.header_text.replace(old, new))
        return run([sys.executable, MODEL_TOOL, "generate", "--header", header,
                    "--out", os.path.join(directory, "model.json")])

    def assert_refused(self, verdict, *phrases):
        code, output = verdict
        self.assertNotEqual(code, 0, output)
        for phrase in phrases:
            self.assertIn(phrase, output)

    def test_the_header_as_committed_passes(self):
        code, output = run([sys.executable, MODEL_TOOL, "check"])
        self.assertEqual(code, 0, output)

    def test_an_output_parameter_without_cuabi_out_is_refused(self):
        self.assert_refused(self.planted("cuabi_driver_get_version(CUABI_OUT int32_t* out_version)",
                                         "cuabi_driver_get_version(int32_t* out_version)"),
                            "parameter out_version of cuabi_driver_get_version is an output (out_*) "
                            "but not marked")

    def test_a_handle_output_without_ownership_is_refused(self):
        self.assert_refused(self.planted("CUABI_OUT CUABI_OWNED cuabi_context** out_context",
                                         "CUABI_OUT cuabi_context** out_context"),
                            "parameter out_context of cuabi_context_create returns a pointer but says "
                            "nothing of its ownership")

    def test_a_borrowed_handle_in_an_output_struct_without_ownership_is_refused(self):
        self.assert_refused(self.planted("CUABI_NULLABLE CUABI_BORROWED cuabi_kernel* kernel;",
                                         "CUABI_NULLABLE cuabi_kernel* kernel;"),
                            "pointer field cuabi_graph_node_info.kernel of an output struct has no ownership")

    def test_a_since_that_disagrees_with_the_version_script_is_refused(self):
        self.assert_refused(self.planted("CUABI_OWNED cuabi_buffer** out_buffer) CUABI_SINCE(1.1);",
                                         "CUABI_OWNED cuabi_buffer** out_buffer);"),
                            "cuabi_module_get_global is marked since 1.0 but abi/cuabi.map exports it "
                            "in CUABI_1.1")

    def test_a_field_since_that_disagrees_with_the_baselines_is_refused(self):
        self.assert_refused(self.planted("    CUABI_SINCE(1.1) int32_t priority;", "    int32_t priority;"),
                            "field cuabi_launch_config.priority is marked since 1.0 but first appears "
                            "in release 1.1")

    def test_a_struct_size_struct_without_released_sizes_is_refused(self):
        planted = ("typedef struct cuabi_planted_options {\n    uint32_t struct_size;\n"
                   "    uint32_t flags;\n} cuabi_planted_options;\n"
                   "#define CUABI_PLANTED_OPTIONS_INIT {sizeof(cuabi_planted_options), 0u}\n\n")
        anchor = "/* Options for cuabi_context_create(). */"
        self.assert_refused(self.planted(anchor, planted + anchor),
                            "struct cuabi_planted_options has struct_size but no released size")

    def test_a_constant_without_a_family_is_refused(self):
        anchor = "#define CUABI_GRAPH_NODE_CONDITIONAL 14\n"
        self.assert_refused(self.planted(anchor, anchor + "#define CUABI_PLANTED_LIMIT 7\n"),
                            "constant CUABI_PLANTED_LIMIT belongs to no family")

    def test_a_model_that_no_longer_matches_the_header_is_named(self):
        directory = tempfile.mkdtemp(dir=self.workdir)
        os.makedirs(os.path.join(directory, "cuabi"))
        header = os.path.join(directory, "cuabi", "cuabi.h")
        with open(header, "w") as handle:
            handle.write(self.header_text.replace("#define CUABI_GRAPH_NODE_CONDITIONAL 14\n",
                                                  "#define CUABI_GRAPH_NODE_CONDITIONAL 14\n"
                                                  "#define CUABI_GRAPH_NODE_PLANTED 15\n"))
        code, output = run([sys.executable, MODEL_TOOL, "check", "--header", header])
        self.assertNotEqual(code, 0, output)
        self.assertIn("cuabi_model.json does not match", output)


class RegenerateCheck(unittest.TestCase):
    """scripts/regenerate.sh --check on a copy of the tree's ABI files."""

    def setUp(self):
        self.tree = tempfile.mkdtemp(prefix="cuabi-regenerate-")
        # bindings/: the generators of its generated files, and those files (scripts/regenerate.sh).
        for directory in ("abi", "include", "scripts", "bindings"):
            shutil.copytree(os.path.join(ROOT, directory), os.path.join(self.tree, directory))
        for path in ("src/api/abi_structs.inc", "docs/api.md"):
            os.makedirs(os.path.dirname(os.path.join(self.tree, path)), exist_ok=True)
            shutil.copy(os.path.join(ROOT, path), os.path.join(self.tree, path))

    def tearDown(self):
        shutil.rmtree(self.tree, ignore_errors=True)

    def check(self):
        return run(["bash", os.path.join(self.tree, "scripts", "regenerate.sh"), "--check"])

    def edit(self, path, old, new):
        path = os.path.join(self.tree, path)
        with open(path) as handle:
            text = handle.read()
        self.assertIn(old, text)
        with open(path, "w") as handle:
            handle.write(text.replace(old, new, 1))

    def test_the_committed_tree_is_current(self):
        code, output = self.check()
        self.assertEqual(code, 0, output)
        self.assertIn("PASS", output)

    def test_a_stale_generated_file_is_named(self):
        self.edit("src/api/abi_structs.inc", "CUABI_STRUCT_FIELD(cuabi_compile_options, salt)\n", "")
        code, output = self.check()
        self.assertNotEqual(code, 0, output)
        self.assertIn("FAIL: src/api/abi_structs.inc is stale", output)
        self.assertNotIn("docs/api.md is stale", output)

    def test_a_header_change_names_the_model_and_every_file_it_changes(self):
        self.edit("include/cuabi/cuabi.h", "    uint32_t reserved;\n} cuabi_compile_options;",
                  "    uint32_t reserved;\n    CUABI_SINCE(1.2) uint64_t planted;\n} cuabi_compile_options;")
        code, output = self.check()
        self.assertNotEqual(code, 0, output)
        for path in ("abi/cuabi_model.json", "src/api/abi_structs.inc", "docs/api.md"):
            self.assertIn("FAIL: %s is stale" % path, output)


if __name__ == "__main__":
    unittest.main(verbosity=2)
