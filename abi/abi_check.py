#!/usr/bin/env python3
"""Writes a libabigail ABI dump of libcuabi, and compares the built library with the committed one
(after OpenZFS's config/Abigail.am).

  dump      abidw of the exported interface, restricted to the types declared under the headers
            directory, without corpus path, compilation directory or source locations, and with
            translation-unit paths made relative to the source root: the same tree gives the same
            file on any machine.
  compare   dumps the built library the same way and runs abidiff against the baseline. abidiff's
            exit status is a bit mask: 1 error, 2 usage error, 4 ABI change, 8 incompatible change.
              no change                         pass
              only added functions              pass, and the additions are printed
              any other change (incompatible,   fail -- unless the SONAME differs from the
              or one abidiff cannot classify,   baseline's, i.e. the ABI major was raised, which
              such as a changed parameter type  allows any change; then the baseline must be
              or a moved field)                 refreshed (scripts/abi-baseline.sh).

usage: abi_check.py dump --library L --headers-dir D --source-root R --out F
       abi_check.py compare --baseline F --library L --headers-dir D --source-root R
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402

ABIDIFF_ERROR, ABIDIFF_USAGE_ERROR, ABIDIFF_CHANGE, ABIDIFF_INCOMPATIBLE = 1, 2, 4, 8

ABIDW_OPTIONS = ["--no-corpus-path", "--no-comp-dir-path", "--no-show-locs", "--type-id-style",
                 "hash", "--drop-private-types", "--exported-interfaces-only"]


def debug_info_options(library):
    """abidw's options to find the library's DWARF: none when it is in the library; for a
    Release build, --debug-info-dir naming where its .gnu_debuglink file is (cmake/
    SeparateDebugInfo.cmake puts it beside the library). Exits when there is neither."""
    readelf = abi_tools.require_tool("readelf", "check that the library has debug info")
    sections = abi_tools.run([readelf, "-S", "-W", library]).stdout
    if ".debug_info" in sections:
        return []
    if ".gnu_debuglink" in sections:
        links = abi_tools.run([readelf, "--debug-dump=links", "-W", library]).stdout
        names = re.findall(r"^\s*Separate debug info file: (\S+)$", links, re.M)
        directory = os.path.dirname(os.path.abspath(library))
        if names and os.path.isfile(os.path.join(directory, names[0])):
            return ["--debug-info-dir", directory]
        print("FAIL: %s links to the debug info file %s, which is not beside it in %s. Fix: rebuild "
              "the library (its post-build step writes the file)." % (library, names[0] if names else "?",
                                                                      directory))
        sys.exit(1)
    print("FAIL: %s has no DWARF debug info and no .gnu_debuglink to a separate file, so abidw "
          "cannot see its types. Fix: build with CMAKE_BUILD_TYPE RelWithDebInfo, Debug, or Release "
          "(which keeps the debug info in a separate file)." % library)
    sys.exit(1)


def dump(library, headers_dir, source_root, out):
    abidw = abi_tools.require_tool("abidw", "write the ABI dump")
    options = debug_info_options(library)
    result = abi_tools.run([abidw] + ABIDW_OPTIONS + options + ["--headers-dir", headers_dir, library])
    root = os.path.abspath(source_root).rstrip("/") + "/"
    text = result.stdout.replace("path='%s" % root, "path='")
    with open(out, "w") as handle:
        handle.write(text)
    return text


def soname(abi_text):
    match = re.search(r"<abi-corpus [^>]*soname='([^']*)'", abi_text)
    return match.group(1) if match else None


def symbol_versions(abi_text):
    """{function symbol: version node} of an ABI dump."""
    return dict(re.findall(r"<elf-symbol name='([^']*)' version='([^']*)'", abi_text))


def added_to_released_nodes(baseline_text, current_text):
    """Problems for functions added to a version node the baseline already has: a released node
    is frozen, so a program that asks for CUABI_1.0 finds exactly what 1.0 had."""
    before, after = symbol_versions(baseline_text), symbol_versions(current_text)
    released = set(before.values())
    return ["%s was added to %s, a version node the baseline already has. Fix: list it in a new "
            "node for this release in abi/cuabi.map, e.g. CUABI_1.1 { global: %s; } %s;"
            % (name, node, name, node) for name, node in sorted(after.items())
            if name not in before and node in released]


def versioned_structs(headers_dir):
    """The public structs that begin with uint32_t struct_size: the ones that may grow at the end."""
    text = ""
    for directory, _, names in os.walk(headers_dir):
        for name in names:
            if name.endswith(".h"):
                with open(os.path.join(directory, name)) as handle:
                    text += handle.read()
    return sorted(set(re.findall(r"typedef struct (cuabi_\w+) \{\s*uint32_t struct_size;", text)))


def appended_fields_suppression(headers_dir, workdir):
    """A libabigail suppression file that accepts fields appended to the end of a struct_size
    struct (an older caller passes its smaller struct_size and gets defaults for the rest), and
    nothing else: a field inserted before the end, moved, resized or removed, or any change to a
    struct without struct_size (cuabi_kernel_arg is an array element), is still reported."""
    names = versioned_structs(headers_dir)
    path = os.path.join(workdir, "appended-fields.abignore")
    with open(path, "w") as handle:
        handle.write("[suppress_type]\n  type_kind = struct\n  name_regexp = ^(%s)$\n"
                     "  has_data_member_inserted_at = end\n" % "|".join(names))
    return path


def struct_members(abi_text, name):
    """[(offset in bits, member name, type id)] of struct `name` in an ABI dump, or None."""
    match = re.search(r"<class-decl name='%s'[^>]*>(.*?)</class-decl>" % re.escape(name), abi_text, re.S)
    if match is None:
        return None
    return [(int(offset), member, type_id) for offset, member, type_id in re.findall(
        r"<data-member [^>]*layout-offset-in-bits='(\d+)'>\s*<var-decl name='([^']*)' type-id='([^']*)'",
        match.group(1))]


def changed_before_the_end(baseline_text, current_text, names):
    """The struct_size structs whose existing members did not all stay where they were (same
    name, offset and type, in order): libabigail's end-insertion suppression would also hide such
    a change, so these are compared without it."""
    changed = []
    for name in names:
        before, after = struct_members(baseline_text, name), struct_members(current_text, name)
        if before is not None and (after is None or after[:len(before)] != before):
            changed.append(name)
    return changed


def abidiff(baseline, current, *extra):
    tool = abi_tools.require_tool("abidiff", "compare the ABI with the baseline")
    return abi_tools.run([tool] + list(extra) + [baseline, current], check=False)


def compare(baseline, library, headers_dir, source_root):
    workdir = tempfile.mkdtemp(prefix="cuabi-abi-")
    try:
        current = os.path.join(workdir, "current.abi")
        current_text = dump(library, headers_dir, source_root, current)
        with open(baseline) as handle:
            baseline_text = handle.read()
        baseline_soname = soname(baseline_text)
        suppression = ["--suppressions", appended_fields_suppression(headers_dir, workdir)]
        moved = changed_before_the_end(baseline_text, current_text, versioned_structs(headers_dir))
        if moved:
            print("Compared without accepting appended fields: members before the end changed in %s"
                  % ", ".join(moved))
            suppression = []
        result = abidiff(baseline, current, *suppression)
        print(result.stdout + result.stderr)
        appended = re.search(r"Functions changes summary: 0 Removed, 0 Changed \((\d+) filtered out\)",
                             result.stdout)
        if result.returncode & (ABIDIFF_ERROR | ABIDIFF_USAGE_ERROR):
            print("FAIL: abidiff could not compare %s with %s (exit %d)" % (baseline, library,
                                                                           result.returncode))
            return 1
        if result.returncode == 0 and appended and int(appended.group(1)) > 0:
            print("OK: compatible ABI change: only additions -- fields appended to struct_size "
                  "structs. Refresh the baseline when the release is made: scripts/abi-baseline.sh.")
            return 0
        if result.returncode == 0:
            print("OK: the ABI of %s is identical to %s" % (library, baseline))
            return 0
        if soname(current_text) != baseline_soname:
            print("OK: the ABI major changed (%s -> %s), so incompatible changes are allowed. "
                  "Refresh the baseline: scripts/abi-baseline.sh" % (baseline_soname,
                                                                     soname(current_text)))
            return 0
        if result.returncode & ABIDIFF_INCOMPATIBLE:
            print("FAIL: incompatible ABI change against %s (see above): a program built against "
                  "%s would break. Fix: restore the removed or changed interface; new behaviour "
                  "goes into new functions (docs/abi-policy.md)." % (baseline, baseline_soname))
            return 1
        if abidiff(baseline, current, "--no-added-syms", *suppression).returncode == 0:
            misplaced = added_to_released_nodes(baseline_text, current_text)
            for problem in misplaced:
                print("FAIL: " + problem)
            if misplaced:
                return 1
            print("OK: compatible ABI change: only additions -- functions in new version nodes and "
                  "fields appended to struct_size structs (listed above). Refresh the baseline when "
                  "the release is made: scripts/abi-baseline.sh.")
            return 0
        print("FAIL: the ABI changed beyond additions (see above): a changed parameter, return "
              "type or struct layout breaks programs built against %s. Fix: restore it and add a "
              "new function instead; if the change is one docs/abi-policy.md allows (a field "
              "appended to a struct_size struct), refresh with scripts/abi-baseline.sh."
              % baseline_soname)
        return 1
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["dump", "compare"])
    parser.add_argument("--library", required=True)
    parser.add_argument("--headers-dir", required=True)
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--baseline")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.command == "dump":
        dump(args.library, args.headers_dir, args.source_root, args.out)
        print("wrote %s" % args.out)
        return 0
    if not os.path.exists(args.baseline):
        print("FAIL: no baseline %s. Fix: scripts/abi-baseline.sh writes it; commit it." % args.baseline)
        return 1
    return compare(args.baseline, args.library, args.headers_dir, args.source_root)


if __name__ == "__main__":
    sys.exit(main())
