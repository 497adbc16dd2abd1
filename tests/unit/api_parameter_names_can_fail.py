#!/usr/bin/env python3
"""api_parameter_names.py fails on each kind of mistake it is there to find, planted in a copy of src/api.

Usage: api_parameter_names_can_fail.py --source-root DIR -- <compile flags of the check>
"""
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# (file, text, planted text, what the check must then say)
PLANTS = [
    ("buffer.cpp", "const void* data, size_t size,", "const void* src, size_t size,",
     "cuabi_buffer_write names its parameters (buffer, offset, src, size, stream)"),
    ("stream.cpp", 'out_cu_stream, "out_cu_stream"', 'out_cu_stream, "out_stream"',
     'passes parameter out_cu_stream with the name "out_stream"'),
    ("buffer.cpp", '"device_address is 0"', '"address is 0"', 'says "address is 0", but cuabi_buffer_wrap has no '
                                                              'parameter address'),
]


def main():
    separator = sys.argv.index("--")
    source_root = sys.argv[sys.argv.index("--source-root") + 1]
    flags = sys.argv[separator + 1:]
    failures = 0
    for file, text, planted, expected in PLANTS:
        with tempfile.TemporaryDirectory() as work:
            api = os.path.join(work, "api")
            shutil.copytree(os.path.join(source_root, "src", "api"), api)
            path = os.path.join(api, file)
            with open(path) as f:
                original = f.read()
            if original.count(text) != 1:
                print("FAIL: %s no longer holds %r once; update this test's plant" % (file, text))
                failures += 1
                continue
            if planted.startswith("const void* src"):  # its uses are renamed with it, as a real rename would
                original = original.replace('data, "data"', 'src, "src"').replace("write(offset, data", "write(offset, src")
            with open(path, "w") as f:
                f.write(original.replace(text, planted))
            result = subprocess.run([sys.executable, os.path.join(HERE, "api_parameter_names.py"), "--source-root",
                                     source_root, "--api-dir", api, "--only", file, "--"] + flags,
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if result.returncode == 0 or expected not in result.stdout:
                print("FAIL: planting %r in %s: exit %d, output lacks %r:\n%s" % (planted, file, result.returncode,
                                                                                  expected, result.stdout))
                failures += 1
            else:
                print("ok: %s with %r is found: %s" % (file, planted, expected))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
