"""Running a generator or compiler for the generators test: it must succeed and say nothing.

A warning from a generator is what a binding author would see on first contact with cuabi.h, so
any diagnostic output fails the probe as surely as a non-zero exit does.
"""
import os
import subprocess
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "abi"))
import abi_tools  # noqa: E402


class ProbeFailure(Exception):
    """A tool failed or warned; str() is the command and what it printed."""


class Context(object):
    """Where things are: the install prefix (with the header under test), a scratch directory
    for this generator, the C compiler that is the reference, and the source tree's scripts."""

    def __init__(self, prefix, work_dir, cc, source_dir, libdir, includedir):
        self.prefix = prefix
        self.work_dir = work_dir
        self.cc = cc
        self.source_dir = source_dir
        self.libdir = os.path.join(prefix, libdir)
        self.include_dir = os.path.join(prefix, includedir)
        self.header = os.path.join(self.include_dir, "cuabi", "cuabi.h")
        self.library = os.path.join(self.libdir, "libcuabi.so.1")


def require(name, purpose):
    """The tool's path; fails (or skips with CUABI_ABI_TOOLS_OPTIONAL=1) saying to run setup.sh."""
    return abi_tools.require_tool(name, purpose)


def unavailable(message):
    """A generator that is not installed: fail saying to run setup.sh, or skip (exit 77) where
    CUABI_ABI_TOOLS_OPTIONAL=1, as for a missing tool on PATH."""
    if abi_tools.tools_optional():
        print("SKIP: %s (CUABI_ABI_TOOLS_OPTIONAL=1)" % message)
        sys.exit(abi_tools.SKIP_CODE)
    raise ProbeFailure("%s. Fix: run scripts/setup.sh" % message)


def run_clean(command, what, quiet_stderr=True, stderr_is_output=False, **kwargs):
    """Runs `command`; returns its stdout (its stderr with stderr_is_output: a program that
    reports there). Raises ProbeFailure when it exits non-zero, or when quiet_stderr and it wrote
    anything to stderr (generators and compilers warn there)."""
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            universal_newlines=True, **kwargs)
    if result.returncode != 0:
        raise ProbeFailure("%s failed (exit %d): %s\n%s%s" % (what, result.returncode, " ".join(command),
                                                             result.stdout[-4000:], result.stderr[-4000:]))
    if quiet_stderr and result.stderr.strip():
        raise ProbeFailure("%s printed diagnostics (a binding author would see them): %s\n%s"
                           % (what, " ".join(command), result.stderr[-4000:]))
    return result.stderr if stderr_is_output else result.stdout


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as handle:
        handle.write(text)
