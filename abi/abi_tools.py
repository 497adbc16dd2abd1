"""Small helpers shared by the ABI check scripts: finding tools, running them, failing clearly.

A check that cannot run because a tool is missing must not pass silently. It fails with a message
that says how to install the tool, except where CUABI_ABI_TOOLS_OPTIONAL=1 (machines without a
package manager, such as the GPU machine): there it exits with SKIP_CODE, which ctest reports as
skipped (the tests set SKIP_RETURN_CODE to it).
"""
import os
import shutil
import subprocess
import sys

SKIP_CODE = 77
SETUP_HINT = "Fix: run scripts/setup.sh (it installs abigail-tools, clang and pkg-config)."


def tools_optional():
    return os.environ.get("CUABI_ABI_TOOLS_OPTIONAL") == "1"


def require_tool(name, purpose):
    """The path of `name`, or exit: fail, or skip where CUABI_ABI_TOOLS_OPTIONAL=1."""
    path = shutil.which(name)
    if path:
        return path
    message = "'%s' was not found on PATH; it is needed to %s." % (name, purpose)
    if tools_optional():
        print("SKIP: %s (CUABI_ABI_TOOLS_OPTIONAL=1)" % message)
        sys.exit(SKIP_CODE)
    print("FAIL: %s %s" % (message, SETUP_HINT))
    sys.exit(1)


def run(command, check=True, **kwargs):
    """Runs `command` (a list) and returns the CompletedProcess with text stdout/stderr."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, **kwargs)
    if check and result.returncode != 0:
        raise SystemExit("FAIL: `%s` exited with %d:\n%s%s" % (
            " ".join(command), result.returncode, result.stdout, result.stderr))
    return result


def report(problems, what):
    """Prints each problem on its own line and exits 1, or prints that `what` holds."""
    if problems:
        for problem in problems:
            print("FAIL: " + problem)
        print("%d problem(s)." % len(problems))
        sys.exit(1)
    print("OK: " + what)
