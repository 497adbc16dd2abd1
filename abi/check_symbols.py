#!/usr/bin/env python3
"""Checks that the header, the version script and the binary agree on what is exported
(after libxkbcommon's symbols-leak-test).

  - the CUABI_API functions of the header, the global names of the map and the functions that
    `nm -D --defined-only` lists are the same set; each difference is named;
  - the binary exports functions named cuabi_* and nothing else (no data, no C++ symbols);
  - each exported function carries the version node the map puts it in (CUABI_1.0, ...);
  - the SONAME is lib<name>.so.<CUABI_ABI_VERSION>;
  - no NEEDED entry names a CUDA library: libcuda, libcudart, libnvrtc are loaded at run time
   , so a machine without them can still load cuabi and be told what is missing.

usage: check_symbols.py --header H --map M --library L
"""
import argparse
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402
import model as abi_model  # noqa: E402

FORBIDDEN_NEEDED = re.compile(r"lib(cuda|cudart|nvrtc|nvJitLink|nvToolsExt)([.\-_]|$)")


def read_map(path):
    """{node: [global names in file order]} and the problems found in the file itself."""
    with open(path) as handle:
        text = re.sub(r"/\*.*?\*/|#[^\n]*", " ", handle.read(), flags=re.S)
    nodes, problems, has_local_star = {}, [], False
    for name, body, _parent in re.findall(r"([\w.]+)\s*\{(.*?)\}\s*([\w.]*)\s*;", text, re.S):
        names, section = [], None
        for entry in body.split(";"):
            entry = entry.strip()
            label = re.match(r"(global|local)\s*:\s*(.*)$", entry, re.S)
            if label:
                section, entry = label.group(1), label.group(2).strip()
            if not entry:
                continue
            if section == "local":
                has_local_star = has_local_star or entry == "*"
            elif "*" in entry or "?" in entry:
                problems.append("%s: node %s exports the pattern '%s'; list each function by name"
                                % (path, name, entry))
            else:
                names.append(entry)
        if names != sorted(names):
            problems.append("%s: the names in node %s are not sorted (keep them sorted so "
                            "additions merge cleanly)" % (path, name))
        nodes[name] = names
    if not nodes:
        problems.append("%s: no version node found" % path)
    if not has_local_star:
        problems.append("%s: no 'local: *;' -- every other symbol would be exported" % path)
    return nodes, problems


def read_exports(library):
    """[(nm type, name, version or None)] of the defined dynamic symbols."""
    nm = abi_tools.require_tool("nm", "list the exported symbols")
    exports = []
    for line in abi_tools.run([nm, "-D", "--defined-only", library]).stdout.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        kind, symbol = parts[-2], parts[-1]
        name, _, version = symbol.partition("@")
        exports.append((kind, name, version.lstrip("@") or None))
    return exports


def read_dynamic(library):
    """(soname, [needed]) from the dynamic section."""
    readelf = abi_tools.require_tool("readelf", "read the SONAME and NEEDED entries")
    text = abi_tools.run([readelf, "-d", "-W", library]).stdout
    soname = re.findall(r"\(SONAME\).*\[(.*)\]", text)
    return (soname[0] if soname else None), re.findall(r"\(NEEDED\).*\[(.*)\]", text)


def differences(sets):
    """Names missing from some of the named sets, one line per name."""
    problems = []
    everything = set().union(*sets.values())
    for name in sorted(everything):
        missing = [label for label, names in sets.items() if name not in names]
        if missing:
            present = [label for label in sets if label not in missing]
            problems.append("%s is in %s but not in %s" % (name, " and ".join(present),
                                                           " and ".join(missing)))
    return problems


def check(header_path, map_path, library):
    header, _ = abi_model.build(header_path)  # the declarations; the model's own checks run elsewhere
    nodes, problems = read_map(map_path)
    exports = read_exports(library)
    node_of = {}
    for node, names in nodes.items():
        for name in names:
            if name in node_of:
                problems.append("%s is listed in both %s and %s of %s" % (name, node_of[name], node,
                                                                        map_path))
            node_of[name] = node

    functions = set()
    for kind, name, version in exports:
        if kind == "A" and name in nodes:
            continue  # the version node itself
        if not name.startswith("cuabi_"):
            problems.append("the library exports '%s' (nm type %s): only cuabi_* functions may be "
                            "exported; check -fvisibility=hidden and the map's 'local: *;'" % (name, kind))
            continue
        if kind not in ("T", "t"):
            problems.append("the library exports %s as nm type %s, not a function: the ABI exports "
                            "functions only" % (name, kind))
        functions.add(name)
        if version and name in node_of and version != node_of[name]:
            problems.append("%s is exported at version %s but %s puts it in %s"
                            % (name, version, map_path, node_of[name]))
    problems += differences({"the header (CUABI_API)": set(f["name"] for f in header["functions"]),
                             "the map": set(node_of),
                             "the library (nm -D)": functions})

    abi_major = next((c["value"] for c in header["constants"] if c["name"] == "CUABI_ABI_VERSION"), None)
    soname, needed = read_dynamic(library)
    stem = re.sub(r"\.so(\..*)?$", "", os.path.basename(library))
    if abi_major is None:
        problems.append("%s defines no CUABI_ABI_VERSION" % header_path)
    elif soname != "%s.so.%s" % (stem, abi_major):
        problems.append("SONAME is %s, expected %s.so.%s (CUABI_ABI_VERSION)" % (soname, stem, abi_major))
    for entry in needed:
        if FORBIDDEN_NEEDED.match(entry):
            problems.append("NEEDED %s: cuabi must load CUDA libraries at run time, never link them" % entry)
    return problems, len(functions), soname, needed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--header", required=True)
    parser.add_argument("--map", required=True)
    parser.add_argument("--library", required=True)
    args = parser.parse_args()
    try:
        problems, count, soname, needed = check(args.header, args.map, args.library)
    except abi_model.ModelError as error:
        problems, count, soname, needed = [str(error)], 0, None, []
    abi_tools.report(problems, "%d functions agree in header, map and binary; SONAME %s; NEEDED %s"
                     % (count, soname, ", ".join(needed)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
