#!/usr/bin/env python3
"""Every entry point in src/api uses cuabi.h's parameter names, and its argument messages name them.

A caller reads "data is NULL" against the header's prototype, so a definition that calls the
parameter `src` (and says "src is NULL") sends the caller looking for an argument that does not
exist. Both sides are read with clang's own parser (-ast-dump=json), never with patterns over the
text; the header's side comes from abi/cuabi_model.json where that model exists.

Checked for each extern "C" definition of a function the header declares:
  1. its parameter names, in order, are the header's;
  2. in every call inside it that passes one of its parameters followed by a string literal naming
     an argument (require_pointer(out_size, "out_size"), Pinned<Buffer>(buffer, "buffer")), the
     literal is that parameter's name;
  3. every message literal of the shape "<name> is ..." ("data is NULL", "size is 0") names one of
     the function's header parameters.

Exit status 0 when all hold, 1 with one line per finding otherwise.
"""
import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys

ARGUMENT_NAME = re.compile(r"^[a-z_][a-z0-9_]*$")
MESSAGE_NAMING_ARGUMENT = re.compile(r"^([a-z_][a-z0-9_]*) is\b")


def dump(clang, arguments):
    """The top-level declarations named cuabi_* of one translation unit, as clang's JSON AST."""
    command = [clang, "-fsyntax-only", "-Xclang", "-ast-dump=json", "-Xclang", "-ast-dump-filter=cuabi_"]
    result = subprocess.run(command + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        raise SystemExit("clang could not parse %s:\n%s" % (arguments[-1], result.stderr[-4000:]))
    decoder, text, at, nodes = json.JSONDecoder(), result.stdout, 0, []
    while True:
        while at < len(text) and text[at].isspace():
            at += 1
        if at == len(text):
            return nodes
        node, at = decoder.raw_decode(text, at)
        nodes.append(node)


def parameters(function):
    return [p.get("name", "") for p in function.get("inner", []) if p.get("kind") == "ParmVarDecl"]


def has_body(function):
    return any(n.get("kind") in ("CompoundStmt", "CXXTryStmt") for n in function.get("inner", []))


def header_parameters(source_root, clang):
    """{function: [parameter names]} for every function cuabi.h declares."""
    model = os.path.join(source_root, "abi", "cuabi_model.json")
    if os.path.exists(model):
        with open(model) as f:
            return {fn["name"]: [p["name"] for p in fn["params"]] for fn in json.load(f)["functions"]}
    header = os.path.join(source_root, "include", "cuabi", "cuabi.h")
    found = {}
    for node in dump(clang, ["-x", "c", "-std=c99", header]):
        if node.get("kind") == "FunctionDecl" and not has_body(node):
            found[node["name"]] = parameters(node)
    return found


def strip(node):
    """The expression under implicit conversions and parentheses."""
    while node.get("kind") in ("ImplicitCastExpr", "ParenExpr", "MaterializeTemporaryExpr",
                               "CXXBindTemporaryExpr", "ExprWithCleanups") and node.get("inner"):
        node = node["inner"][0]
    return node


def string_value(node):
    node = strip(node)
    if node.get("kind") != "StringLiteral":
        return None
    return json.loads(node["value"])  # clang writes the literal as C source; plain text decodes as JSON


def walk(node):
    yield node
    for child in node.get("inner", []) or []:
        yield from walk(child)


CALLS = ("CallExpr", "CXXConstructExpr", "CXXTemporaryObjectExpr", "CXXMemberCallExpr", "CXXOperatorCallExpr")


def findings_in(function, header_names, where):
    name = function["name"]
    defined = parameters(function)
    if defined != header_names:
        yield "%s: %s names its parameters (%s); cuabi.h names them (%s)" % (
            where, name, ", ".join(defined), ", ".join(header_names))
    allowed = set(header_names)
    for node in walk(function):
        if node.get("kind") in CALLS:
            arguments = [strip(a) for a in node.get("inner", [])]
            for argument, following in zip(arguments, arguments[1:]):
                referenced = argument.get("referencedDecl", {})
                text = string_value(following)
                # A literal spelled like an argument (not a type name such as "cuabi_module_info").
                if (argument.get("kind") == "DeclRefExpr" and referenced.get("kind") == "ParmVarDecl" and
                        text is not None and ARGUMENT_NAME.match(text) and not text.startswith("cuabi_") and
                        text != referenced.get("name")):
                    yield "%s: %s passes parameter %s with the name \"%s\"" % (
                        where, name, referenced.get("name"), text)
        text = string_value(node) if node.get("kind") == "StringLiteral" else None
        match = MESSAGE_NAMING_ARGUMENT.match(text) if text else None
        if match and match.group(1) not in allowed:
            yield "%s: %s says \"%s\", but %s has no parameter %s (cuabi.h: %s)" % (
                where, name, text, name, match.group(1), ", ".join(header_names) or "none")


def check(source_root, api_dir, clang, compile_flags, only=None):
    header = header_parameters(source_root, clang)
    sources = sorted(os.path.join(api_dir, f) for f in os.listdir(api_dir) if f.endswith(".cpp") and
                     (only is None or f in only))
    arguments = ["-x", "c++", "-std=c++17"] + compile_flags
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        dumps = list(pool.map(lambda path: dump(clang, arguments + [path]), sources))
    findings, defined = [], 0
    for path, nodes in zip(sources, dumps):
        for node in nodes:
            if node.get("kind") == "FunctionDecl" and node.get("name") in header and has_body(node):
                defined += 1
                findings.extend(findings_in(node, header[node["name"]], os.path.basename(path)))
    return findings, defined, len(header)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-root", required=True)
    parser.add_argument("--api-dir", help="the definitions to check (default: <source-root>/src/api)")
    parser.add_argument("--clang", default="clang++")
    parser.add_argument("--only", action="append", help="check only this file of the directory (repeatable)")
    parser.add_argument("compile_flags", nargs=argparse.REMAINDER,
                        help="after --: include directories and definitions the sources need")
    options = parser.parse_args()
    flags = [f for f in options.compile_flags if f != "--"]
    api_dir = options.api_dir or os.path.join(options.source_root, "src", "api")
    findings, defined, declared = check(options.source_root, api_dir, options.clang, flags, options.only)
    for finding in findings:
        print(finding + ". Fix: use the header's parameter name in the definition and in its messages")
    if defined < declared and not options.only:
        print("only %d of the %d functions cuabi.h declares were found defined in %s" % (defined, declared, api_dir))
        return 1
    print("%d definitions checked, %d findings" % (defined, len(findings)))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
