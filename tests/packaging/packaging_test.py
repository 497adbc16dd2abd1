#!/usr/bin/env python3
"""Installs cuabi into a fresh prefix and uses it the ways the README promises (label packaging).

  install       cmake --install into an emptied prefix (the fixture for the steps below)
  layout        header, library with SONAME links, CMake package files, the documents the header
                names with the licence and the changelog, a pkg-config file whose prefix is
                relative to itself, an exported target that lists its include directory once, no
                file naming the prefix, and (--with-cli) a `cuabi` tool that runs from the prefix
  header        the installed header has no scaffolding and names only installed documents
                (abi/installed_header.py)
  cmake         builds tests/packaging/consumer with find_package(cuabi 1 CONFIG REQUIRED) and runs it
  pkg-config    builds the same consumer with `pkg-config --cflags --libs cuabi` and runs it
  relocated     installs into a prefix of its own, MOVES the tree elsewhere, then builds and runs
                the consumer against the moved copy both ways, and runs the moved tool

The consumer checks that it loaded the installed library, not the build tree's; it runs with
LD_LIBRARY_PATH removed, so it can only find the library through what the package provides.
"""
import argparse
import os
import re
import shutil
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "abi"))
import abi_tools  # noqa: E402
import installed_header  # noqa: E402

DOCS = ("errors.md", "safety.md", "compile.md", "cache.md", "device.md", "graphs.md", "memory.md", "multi-gpu.md",
        "tensor-maps.md", "linking.md", "abi-policy.md", "profiling.md", "performance.md", "cli.md", "LICENSE",
        "CHANGELOG.md")


def clean_env(**extra):
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(extra)
    return env


def run_consumer(binary, libdir):
    result = abi_tools.run([binary, libdir], check=False, env=clean_env())
    print(result.stdout + result.stderr)
    return [] if result.returncode == 0 else ["the consumer %s failed (exit %d)" % (binary,
                                                                                result.returncode)]


def step_install(args):
    install_into(args, args.prefix)
    return []


def install_into(args, prefix):
    shutil.rmtree(prefix, ignore_errors=True)
    abi_tools.run([args.cmake, "--install", args.build_dir, "--prefix", prefix])


def step_layout(args):
    problems = []
    lib = os.path.join(args.prefix, args.libdir)
    major, version = args.version.split(".")[0], args.version

    def expect_file(relative):
        if not os.path.isfile(os.path.join(args.prefix, relative)):
            problems.append("%s is not installed" % relative)

    def expect_link(name, target):
        path = os.path.join(lib, name)
        if not os.path.islink(path) or os.readlink(path) != target:
            problems.append("%s/%s should be a symbolic link to %s" % (args.libdir, name, target))

    expect_file(os.path.join(args.includedir, "cuabi", "cuabi.h"))
    expect_file(os.path.join(args.libdir, "libcuabi.so." + version))
    expect_link("libcuabi.so", "libcuabi.so." + major)
    expect_link("libcuabi.so." + major, "libcuabi.so." + version)
    for name in ("cuabiConfig.cmake", "cuabiConfigVersion.cmake", "cuabiTargets.cmake"):
        expect_file(os.path.join(args.libdir, "cmake", "cuabi", name))
    for name in DOCS:
        expect_file(os.path.join(args.docdir, name))
    installed_headers = [os.path.join(d, f) for d, _, files in
                         os.walk(os.path.join(args.prefix, args.includedir)) for f in files]
    if len(installed_headers) != 1:
        problems.append("only cuabi/cuabi.h is public, but these were installed: %s" % installed_headers)
    problems += check_pc_file(os.path.join(lib, "pkgconfig", "cuabi.pc"), args)
    problems += check_exported_target(os.path.join(lib, "cmake", "cuabi"), args.includedir)
    problems += files_naming(args.prefix)
    if os.path.isfile(os.path.join(lib, "libcuabi.so." + version + ".debug")):
        problems.append("the separate debug info file (a Release build's) was installed; it stays in the build tree")
    if args.with_cli:
        problems += check_cli(os.path.join(args.prefix, args.bindir, "cuabi"), args.bindir, version)
    return problems


def check_pc_file(pc, args):
    """cuabi.pc finds its prefix relative to itself, and its directories from the prefix."""
    if not os.path.isfile(pc):
        return ["%s/pkgconfig/cuabi.pc is not installed" % args.libdir]
    with open(pc) as handle:
        variables = dict(re.findall(r"^(\w+)=(.*)$", handle.read(), re.M))
    up = "/".join([".."] * (len(os.path.normpath(args.libdir).split("/")) + 1))
    expected = {"prefix": "${pcfiledir}/" + up, "libdir": "${prefix}/" + args.libdir,
                "includedir": "${prefix}/" + args.includedir}
    return ["cuabi.pc says %s=%s, expected %s (relocatable)" % (name, variables.get(name), value)
            for name, value in sorted(expected.items()) if variables.get(name) != value]


def check_exported_target(cmake_dir, includedir):
    """cuabi::cuabi's INTERFACE_INCLUDE_DIRECTORIES is exactly the installed include directory."""
    with open(os.path.join(cmake_dir, "cuabiTargets.cmake")) as handle:
        match = re.search(r'INTERFACE_INCLUDE_DIRECTORIES "([^"]*)"', handle.read())
    directories = match.group(1).split(";") if match else []
    if directories != ["${_IMPORT_PREFIX}/" + includedir]:
        return ["cuabi::cuabi's INTERFACE_INCLUDE_DIRECTORIES is %s; expected the installed %s "
                "directory, once" % (directories, includedir)]
    return []


def files_naming(prefix):
    """Text files in the tree that name the prefix: the tree would break when moved."""
    named = []
    for directory, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(directory, name)
            if name.endswith((".cmake", ".pc")):
                with open(path) as handle:
                    if prefix in handle.read():
                        named.append("%s names the install prefix %s, so a moved install tree would "
                                     "break" % (os.path.relpath(path, prefix), prefix))
    return named


def check_cli(tool, bindir, version):
    """The installed tool runs from the prefix (its RUNPATH finds the installed library)."""
    if not os.access(tool, os.X_OK):
        return ["%s/cuabi (the CLI) is not installed" % bindir]
    result = abi_tools.run([tool, "--version"], check=False, env=clean_env())
    if result.returncode != 0 or version not in result.stdout:
        return ["the installed `cuabi --version` printed %r (exit %d), expected %s" % (
            result.stdout + result.stderr, result.returncode, version)]
    return []


def step_header(args):
    header = os.path.join(args.prefix, args.includedir, "cuabi", "cuabi.h")
    with open(header) as handle:
        return installed_header.problems_in(handle.read(), args.prefix, os.path.join(args.prefix, args.docdir))


def build_with_cmake(args, prefix, build):
    shutil.rmtree(build, ignore_errors=True)
    configure = [args.cmake, "-S", args.consumer_dir, "-B", build, "-G", args.generator,
                 "-DCMAKE_PREFIX_PATH=" + prefix, "-DCMAKE_C_COMPILER=" + args.cc,
                 "-DCMAKE_C_FLAGS=" + args.extra_flags, "-DCMAKE_EXE_LINKER_FLAGS=" + args.extra_flags]
    if args.make_program:
        configure.append("-DCMAKE_MAKE_PROGRAM=" + args.make_program)
    abi_tools.run(configure, env=clean_env())
    abi_tools.run([args.cmake, "--build", build], env=clean_env())
    return run_consumer(os.path.join(build, "consumer"), os.path.join(prefix, args.libdir))


def build_with_pkg_config(args, prefix, binary):
    pkg_config = abi_tools.require_tool("pkg-config", "build the pkg-config consumer")
    env = clean_env(PKG_CONFIG_PATH=os.path.join(prefix, args.libdir, "pkgconfig"))
    modversion = abi_tools.run([pkg_config, "--modversion", "cuabi"], env=env).stdout.strip()
    if modversion != args.version:
        return ["pkg-config --modversion cuabi is %s, expected %s" % (modversion, args.version)]
    flags = abi_tools.run([pkg_config, "--cflags", "--libs", "cuabi"], env=env).stdout.split()
    libdir = abi_tools.run([pkg_config, "--variable=libdir", "cuabi"], env=env).stdout.strip()
    if os.path.realpath(libdir) != os.path.realpath(os.path.join(prefix, args.libdir)):
        return ["pkg-config --variable=libdir cuabi is %s, not the libdir of %s" % (libdir, prefix)]
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    abi_tools.run([args.cc] + args.extra_flags.split() + [
        os.path.join(args.consumer_dir, "consumer.c"), "-o", binary] + flags + [
        "-ldl", "-Wl,-rpath," + libdir], env=env)
    return run_consumer(binary, os.path.join(prefix, args.libdir))


def step_cmake(args):
    return build_with_cmake(args, args.prefix, os.path.join(args.work_dir, "cmake-consumer"))


def step_pkg_config(args):
    return build_with_pkg_config(args, args.prefix, os.path.join(args.work_dir, "pkg-config-consumer"))


def step_relocated(args):
    """Install, move the whole tree, and use only the moved copy."""
    root = os.path.join(args.work_dir, "relocated")
    shutil.rmtree(root, ignore_errors=True)
    installed, moved = os.path.join(root, "installed"), os.path.join(root, "elsewhere", "cuabi")
    install_into(args, installed)
    os.makedirs(os.path.dirname(moved))
    os.rename(installed, moved)
    problems = build_with_cmake(args, moved, os.path.join(root, "cmake-consumer"))
    problems += build_with_pkg_config(args, moved, os.path.join(root, "pkg-config-consumer"))
    if args.with_cli:
        problems += check_cli(os.path.join(moved, args.bindir, "cuabi"), args.bindir, args.version)
    return problems


STEPS = {"install": step_install, "layout": step_layout, "header": step_header, "cmake": step_cmake,
         "pkg-config": step_pkg_config, "relocated": step_relocated}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("step", choices=sorted(STEPS))
    for option in ("build-dir", "prefix", "work-dir", "consumer-dir", "cmake", "generator", "cc",
                   "version", "libdir", "bindir", "includedir"):
        parser.add_argument("--" + option, required=True)
    parser.add_argument("--docdir", default=os.path.join("share", "doc", "cuabi"))
    parser.add_argument("--make-program", default="")
    parser.add_argument("--with-cli", action="store_true", help="the cuabi tool was built")
    parser.add_argument("--extra-flags", default="", help="e.g. sanitizer flags of the build")
    args = parser.parse_args()
    abi_tools.report(STEPS[args.step](args), "packaging step '%s'" % args.step)
    return 0


if __name__ == "__main__":
    sys.exit(main())
