#!/usr/bin/env python3
"""Builds the ABI model, abi/cuabi_model.json, from include/cuabi/cuabi.h with clang's own parser.

The header is parsed once, by libclang (PyPI libclang, pinned in scripts/setup.sh), with
CUABI_ABI_MODEL defined so that the annotation macros of the header's preamble become
__attribute__((annotate("cuabi:..."))) attributes on the declarations they mark. What the model
holds, and where each fact comes from:

  handles     opaque typedefs (typedef struct x x;)                  the parser
  families    typedefs marked CUABI_ENUM_FAMILY / CUABI_FLAGS_FAMILY the annotation
  constants   object-like CUABI_* macros with a literal value        the preprocessing record;
              family: the family entry that matches the name longest; since: the first release
              whose layout baseline (abi/baselines/layout-X.golden) has the constant
  structs     typedef'd structs with size, align, field offsets      the parser's record layout;
              released_sizes: sizeof in each release's abidw baseline (abi/baselines/cuabi-X.abi)
              and in this header; direction: how functions pass the struct
  functions   CUABI_API prototypes with each parameter's direction, nullability, ownership
  doc         the comment block above a declaration and the comment on its own line, found at the
              parser's source locations

The facts are checked while the model is built, and every problem fails the build naming the
declaration (see `problems` below): an out_* parameter without CUABI_OUT/CUABI_INOUT (or a marked one
not named out_*), a handle output or a pointer field of an output struct without ownership, a
"since" that disagrees with the version script or the release baselines, a struct_size struct
without released sizes, an integer constant without a family (other than the STANDALONE ones).

usage: model.py generate [--header H] [--out abi/cuabi_model.json]
       model.py check [--header H] [--model abi/cuabi_model.json]   (fails when the file is stale)
"""
import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_HEADER = os.path.join(ROOT, "include", "cuabi", "cuabi.h")
DEFAULT_MODEL = os.path.join(HERE, "cuabi_model.json")
BASELINES = os.path.join(HERE, "baselines")
MAP = os.path.join(HERE, "cuabi.map")

# Integer constants that are single values, not members of a family of alternatives.
STANDALONE = {
    "CUABI_VERSION_MAJOR": "the header's version",
    "CUABI_VERSION_MINOR": "the header's version",
    "CUABI_VERSION_PATCH": "the header's version",
    "CUABI_VERSION_NUMBER": "the header's version",
    "CUABI_ABI_VERSION": "the SONAME's number",
    "CUABI_STRUCT_SIZE_MAX": "a limit of every struct_size",
    "CUABI_GRAPH_PARAM_COUNT_UNKNOWN": "a sentinel value of cuabi_graph_node_info.param_count",
    "CUABI_LAUNCH_BATCH_MAX_ITEMS": "a limit of cuabi_launch_batch(), not a launch flag",
    "CUABI_TENSOR_MAP_MAX_RANK": "a limit of cuabi_tensor_map_params.rank, not a data type",
    "CUABI_COMPILE_BATCH_MAX_REQUESTS": "a limit of cuabi_compile_batch_start(), not a compile flag",
    "CUABI_LINK_MAX_INPUTS": "a limit of cuabi_module_link(), not a link flag",
}
# Macros of the header that are machinery, not ABI: the include guard, the export macro and the
# annotation vocabulary documented in the header's preamble.
MACHINERY = {"CUABI_H", "CUABI_API", "CUABI_OUT", "CUABI_INOUT", "CUABI_NULLABLE", "CUABI_OWNED",
             "CUABI_BORROWED", "CUABI_TRANSFERRED", "CUABI_SINCE", "CUABI_ENUM_FAMILY",
             "CUABI_FLAGS_FAMILY"}
DECIMAL = re.compile(r"^-?[0-9]+$")
UNSIGNED = re.compile(r"^(0[xX][0-9A-Fa-f]+|[0-9]+)[uU]$")


class ModelError(Exception):
    pass


class ToolMissing(ModelError):
    """libclang or clang is not installed: with CUABI_ABI_TOOLS_OPTIONAL=1 the checks skip (77)."""


def load_clang():
    try:
        import clang.cindex as cindex
    except ImportError:
        raise ToolMissing("the Python module clang (PyPI libclang) is missing for %s. Fix: run "
                         "scripts/setup.sh" % sys.executable)
    return cindex


def builtin_include_dir():
    """clang's own stddef.h/stdint.h: the PyPI libclang ships the parser but not these headers."""
    try:
        resource = subprocess.run(["clang", "-print-resource-dir"], stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, universal_newlines=True, check=True)
    except (OSError, subprocess.CalledProcessError):
        raise ToolMissing("clang is not on PATH; its builtin headers are needed. Fix: run scripts/setup.sh")
    return os.path.join(resource.stdout.strip(), "include")


# --- comments at the parser's locations ------------------------------------------------------
_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*"|/\*.*?\*/|//[^\n]*', re.S)


_RANGE_LABEL = re.compile(r"^[A-Z][\w ]*: \d+-\d+$")


class Comments(object):
    """The header's comments with their line spans, to attach to declarations by location."""

    def __init__(self, text):
        self.lines = text.split("\n")
        self.spans = []  # (first line, last line, first column, text)
        for match in _COMMENT.finditer(text):
            if match.group(0).startswith('"'):
                continue
            first = text.count("\n", 0, match.start()) + 1
            last = first + match.group(0).count("\n")
            column = match.start() - (text.rfind("\n", 0, match.start()) + 1)
            self.spans.append((first, last, column, match.group(0)))

    @staticmethod
    def clean(comment):
        body = comment[2:-2] if comment.startswith("/*") else comment[2:]
        lines = [re.sub(r"^\s*\*?\s?", "", line) for line in body.split("\n")]
        return " ".join(" ".join(lines).split())

    def doc(self, first_line, last_line):
        """The comment block ending on the line above `first_line` (none when a blank line or code
        separates them) and the comment that starts on `last_line` after the declaration."""
        parts = []
        above = [s for s in self.spans if s[1] == first_line - 1 and s[2] == 0]
        # A group's heading is no constant's documentation: the section banners, and the status
        # ranges' labels ("/* Launch: 60-79 */") that open each range of codes.
        if above and not self.lines[above[0][0] - 1].strip().startswith("/* ====") \
                and not _RANGE_LABEL.match(self.clean(above[0][3])):
            parts.append(self.clean(above[0][3]))
        trailing = [s for s in self.spans if s[0] == last_line and s[2] > 0 and
                    self.lines[last_line - 1][:s[2]].strip()]
        if trailing:
            parts.append(self.clean(trailing[0][3]))
        return " ".join(parts)


# --- release baselines -----------------------------------------------------------------------
def releases_before(version):
    """The released versions with baselines, ascending (1.0, 1.1, ...)."""
    found = []
    for name in os.listdir(BASELINES):
        match = re.match(r"cuabi-(\d+)\.(\d+)\.abi$", name)
        if match:
            found.append((int(match.group(1)), int(match.group(2))))
    return ["%d.%d" % r for r in sorted(found) if "%d.%d" % r != version]


def released_struct_sizes(release):
    """{struct name: sizeof} of a release's abidw dump."""
    tree = ElementTree.parse(os.path.join(BASELINES, "cuabi-%s.abi" % release))
    sizes = {}
    for element in tree.iter("class-decl"):
        if element.get("size-in-bits") and element.get("name", "").startswith("cuabi_"):
            sizes[element.get("name")] = int(element.get("size-in-bits")) // 8
    return sizes


def released_layout_names(release):
    """{('constant'|'field'|'struct', name)} of a release's layout baseline."""
    names = set()
    with open(os.path.join(BASELINES, "layout-%s.golden" % release)) as handle:
        for line in handle:
            parts = line.split()
            if len(parts) >= 2 and not line.startswith("#"):
                names.add((parts[0], parts[1]))
    return names


def map_nodes(path=MAP):
    """{function: release} from the linker version script's CUABI_X.Y nodes."""
    nodes, current = {}, None
    with open(path) as handle:
        for line in handle:
            node = re.match(r"\s*CUABI_(\d+\.\d+)\s*\{", line)
            if node:
                current = node.group(1)
            symbol = re.match(r"\s*(cuabi_\w+)\s*;", line)
            if symbol and current:
                nodes[symbol.group(1)] = current
    return nodes


# --- the parse -------------------------------------------------------------------------------
def annotations(cursor):
    return [c.spelling[len("cuabi:"):] for c in cursor.get_children()
            if c.kind.name == "ANNOTATE_ATTR" and c.spelling.startswith("cuabi:")]


def fact(facts, key):
    for item in facts:
        if item.startswith(key + "="):
            return item[len(key) + 1:]
    return None


def pointer_depth(type_):
    depth = 0
    while type_.kind.name == "POINTER":
        depth += 1
        type_ = type_.get_pointee()
    return depth, type_


def spelled(type_):
    """clang's spelling without the space before '*': 'const char *' -> 'const char*'."""
    return re.sub(r"\s+\*", "*", type_.spelling)


class Builder(object):
    def __init__(self, header_path):
        self.header_path = os.path.abspath(header_path)
        with open(self.header_path) as handle:
            self.text = handle.read()
        self.comments = Comments(self.text)
        self.problems = []

    def problem(self, line, message):
        self.problems.append("%s:%d: %s" % (self.header_path, line, message))

    def doc(self, cursor):
        return self.comments.doc(cursor.extent.start.line, cursor.extent.end.line)

    def parse(self):
        cindex = load_clang()
        index = cindex.Index.create()
        include_dir = os.path.dirname(os.path.dirname(self.header_path))
        tu = index.parse(self.header_path, args=[
            "-x", "c", "-std=c11", "-DCUABI_ABI_MODEL", "-I", include_dir,
            "-isystem", builtin_include_dir()],
            options=cindex.TranslationUnit.PARSE_DETAILED_PROCESSING_RECORD |
            cindex.TranslationUnit.PARSE_SKIP_FUNCTION_BODIES)
        errors = [str(d) for d in tu.diagnostics if d.severity >= 3]
        if errors:
            raise ModelError("clang cannot parse %s: %s" % (self.header_path, "; ".join(errors)))
        return [c for c in tu.cursor.get_children()
                if c.location.file and os.path.abspath(c.location.file.name) == self.header_path]

    def build(self):
        cursors = self.cursors = self.parse()
        version = self.version(cursors)
        release = ".".join(version.split(".")[:2])
        # A header without a version (a test's small header) has no releases to check against.
        released = releases_before(release) if self.version_found else []
        self.releases = released + [release]
        self.release = release
        self.layouts = dict((r, released_layout_names(r)) for r in released)
        self.sizes = dict((r, released_struct_sizes(r)) for r in released)
        model = {"version": version, "releases": self.releases, "handles": [], "families": [],
                 "constants": [], "structs": [], "functions": []}
        initializers = {}
        for cursor in cursors:
            kind = cursor.kind.name
            if kind == "TYPEDEF_DECL":
                self.typedef(cursor, model)
            elif kind == "FUNCTION_DECL":
                model["functions"].append(self.function(cursor))
            elif kind == "MACRO_DEFINITION":
                value = self.macro_value(cursor)
                if value is not None and value.startswith("{"):
                    initializers[cursor.spelling] = cursor
                elif value is not None:
                    model["constants"].append(self.constant(cursor, value))
        self.assign_families(model)
        self.finish_structs(model, initializers)
        self.check_functions(model)
        return model

    def version(self, cursors):
        for cursor in cursors:
            if cursor.kind.name == "MACRO_DEFINITION" and cursor.spelling == "CUABI_VERSION_STRING":
                self.version_found = True
                return self.macro_value(cursor).strip('"')
        self.version_found = False
        self.problem(1, "%s defines no CUABI_VERSION_STRING" % self.header_path)
        return "0.0.0"

    def macro_value(self, cursor):
        """The literal value of an object-like CUABI_* macro, None for machinery."""
        name = cursor.spelling
        tokens = list(cursor.get_tokens())
        function_like = len(tokens) > 1 and tokens[1].spelling == "(" and \
            tokens[1].extent.start.offset == tokens[0].extent.end.offset
        if not name.startswith("CUABI_") or name in MACHINERY or function_like:
            if name.startswith("CUABI_") and name not in MACHINERY:
                self.problem(cursor.location.line, "%s is a function-like macro; bindings cannot "
                             "call macros. Fix: write a function" % name)
            return None
        if len(tokens) < 2:
            return ""
        # the value as written (the preprocessing record's extent), e.g. "(1u << 3)"
        return self.text[tokens[1].extent.start.offset:tokens[-1].extent.end.offset]

    def since(self, cursor):
        return fact(annotations(cursor), "since") or "1.0"

    # --- typedefs: handles, families, structs ------------------------------------------------
    def typedef(self, cursor, model):
        facts = annotations(cursor)
        underlying = cursor.underlying_typedef_type
        children = [c for c in cursor.get_children() if c.kind.name == "STRUCT_DECL"]
        if children and children[0].is_definition():
            model["structs"].append(self.struct(cursor, children[0]))
            return
        declaration = underlying.get_declaration()
        if declaration.kind.name == "STRUCT_DECL" and not declaration.is_definition():
            model["handles"].append({"name": cursor.spelling, "since": self.since(cursor),
                                     "doc": self.doc(cursor)})
            return
        family = fact(facts, "family")
        if family:
            kind, _, prefixes = family.partition(":")
            model["families"].append({
                "name": cursor.spelling, "type": underlying.spelling, "kind": kind,
                "prefix": prefixes.split()[0], "members": prefixes.split(),
                "since": self.since(cursor), "doc": self.doc(cursor)})

    def struct(self, typedef, record):
        type_ = typedef.type
        struct_since = self.since(record)
        fields = []
        for field in record.get_children():
            if field.kind.name != "FIELD_DECL":
                continue
            facts = annotations(field)
            field_type = field.type
            dims = []
            while field_type.kind.name == "CONSTANTARRAY":
                dims.append(field_type.element_count)
                field_type = field_type.element_type
            depth, _ = pointer_depth(field_type)
            fields.append({
                "name": field.spelling, "type": spelled(field_type),
                "offset": field.get_field_offsetof() // 8, "size": field.type.get_size(),
                "array": dims or None, "since": fact(facts, "since") or struct_since,
                "nullable": "nullable" in facts,
                "ownership": fact(facts, "ownership") or ("borrowed" if depth else None),
                "explicit_ownership": fact(facts, "ownership") is not None,
                "pointer": depth > 0,
                "doc": self.doc(field), "line": field.location.line})
        return {"name": typedef.spelling, "size": type_.get_size(), "align": type_.get_align(),
                "since": struct_since, "direction": None, "released_sizes": {},
                "init_function": None, "init_macro": None, "doc": self.doc(typedef)
                or self.comments.doc(record.extent.start.line, record.extent.start.line),
                "fields": fields, "line": typedef.location.line}

    # --- constants -------------------------------------------------------------------------
    def constant(self, cursor, value):
        name, line = cursor.spelling, cursor.location.line
        entry = {"name": name, "value": None, "type": None, "family": None,
                 "since": self.constant_since(name), "doc": self.doc(cursor), "line": line}
        if value.startswith('"'):
            entry.update(value=json.loads(value), type="string")
        elif DECIMAL.match(value):
            entry.update(value=int(value), type="int32_t")
            if not -2 ** 31 <= entry["value"] < 2 ** 31:
                self.problem(line, "%s is %s, outside int32_t. Fix: write a u suffix for an "
                             "unsigned value" % (name, value))
        elif UNSIGNED.match(value):
            number = int(value[:-1], 0)
            entry.update(value=number, type="uint32_t" if number < 2 ** 32 else "uint64_t")
        else:
            self.problem(line, "%s is '%s', not a literal generators can type. Fix: write a "
                         "decimal literal (int32_t) or a u-suffixed one (flags, unsigned)" % (name, value))
            entry.update(value=value, type="unknown")
        return entry

    def constant_since(self, name):
        for release in self.releases[:-1]:
            if ("constant", name) in self.layouts[release]:
                return release
        return self.release

    def assign_families(self, model):
        families = model["families"]
        for constant in model["constants"]:
            best = None
            for family in families:
                for member in family["members"]:
                    exact = member == constant["name"]
                    if exact or (member.endswith("_") and constant["name"].startswith(member)):
                        score = (exact, len(member))
                        if best is None or score > best[0]:
                            best = (score, family)
            if constant["type"] == "string" or constant["name"] in STANDALONE:
                continue
            if best is None:
                self.problem(constant["line"], "constant %s belongs to no family. Fix: add a "
                             "CUABI_ENUM_FAMILY/CUABI_FLAGS_FAMILY typedef whose prefix matches "
                             "it, or list it in STANDALONE of abi/model.py with a reason"
                             % constant["name"])
                continue
            family = best[1]
            want = "int32_t" if family["kind"] == "enum" else "uint32_t"
            if family["type"] != want or constant["type"] != want:
                self.problem(constant["line"], "%s (%s) is in %s family %s of type %s; enum "
                             "families are int32_t with decimal constants, flags uint32_t with "
                             "u-suffixed ones" % (constant["name"], constant["type"], family["kind"],
                                                  family["name"], family["type"]))
            constant["family"] = family["name"]

    # --- structs, after the functions say how they are passed --------------------------------
    def finish_structs(self, model, initializers):
        functions = dict((f["name"], f) for f in model["functions"])
        for struct in model["structs"]:
            name = struct["name"]
            uses = set()
            for function in model["functions"]:
                if function["name"] == name + "_init":
                    continue  # every struct's init function fills it, whatever its direction
                for param in function["params"]:
                    if re.sub(r"\bconst\b|\*", "", param["type"]).strip() == name:
                        uses.add("in" if param["direction"] == "in" else "out")
            struct["direction"] = "inout" if len(uses) > 1 else (uses.pop() if uses else "in")
            if name + "_init" in functions:
                struct["init_function"] = name + "_init"
            if name.upper() + "_INIT" in initializers:
                struct["init_macro"] = name.upper() + "_INIT"
            for release in self.releases[:-1]:
                size = self.sizes[release].get(name)
                if size is not None:
                    struct["released_sizes"][release] = size
            struct["released_sizes"][self.release] = struct["size"]
            self.check_struct(struct)

    def check_struct(self, struct):
        line = struct["line"]
        first_release = min(struct["released_sizes"], key=lambda r: tuple(map(int, r.split("."))))
        if struct["since"] != first_release:
            self.problem(line, "struct %s is marked since %s but the release baselines first have "
                         "it in %s. Fix: mark it CUABI_SINCE(%s)" % (struct["name"], struct["since"],
                                                                     first_release, first_release))
        has_size = struct["fields"] and struct["fields"][0]["name"] == "struct_size"
        if not self.version_found:
            return
        if has_size and struct["since"] != self.release and len(struct["released_sizes"]) < 2:
            self.problem(line, "struct %s has struct_size but no released size in abi/baselines. "
                         "Fix: add the release's baseline (scripts/abi-baseline.sh)" % struct["name"])
        for field in struct["fields"]:
            released = [r for r in self.releases[:-1]
                        if ("field", "%s.%s" % (struct["name"], field["name"])) in self.layouts[r]]
            expected = released[0] if released else self.release
            if field["since"] != expected:
                self.problem(field["line"], "field %s.%s is marked since %s but first appears in "
                             "release %s. Fix: mark it CUABI_SINCE(%s)%s" % (
                                 struct["name"], field["name"], field["since"], expected, expected,
                                 " (unmarked means 1.0)" if expected == "1.0" else ""))
            if field["pointer"] and struct["direction"] != "in" and not field["explicit_ownership"]:
                self.problem(field["line"], "pointer field %s.%s of an output struct has no "
                             "ownership. Fix: mark it CUABI_BORROWED, CUABI_OWNED or "
                             "CUABI_TRANSFERRED" % (struct["name"], field["name"]))

    # --- functions ---------------------------------------------------------------------------
    def function(self, cursor):
        facts = annotations(cursor)
        params = []
        for param in cursor.get_arguments():
            pfacts = annotations(param)
            depth, pointee = pointer_depth(param.type)
            direction = fact(pfacts, "direction") or "in"
            ownership = fact(pfacts, "ownership")
            if ownership is None and depth and direction == "in":
                ownership = "borrowed"
            params.append({"name": param.spelling, "type": spelled(param.type),
                           "direction": direction, "nullable": "nullable" in pfacts,
                           "ownership": ownership, "explicit_ownership": fact(pfacts, "ownership") is not None,
                           "pointer_depth": depth, "pointee": pointee.spelling})
        return {"name": cursor.spelling, "since": fact(facts, "since") or "1.0",
                "returns": spelled(cursor.result_type), "doc": self.doc(cursor), "params": params,
                "line": cursor.location.line}

    def check_functions(self, model):
        nodes = map_nodes() if self.version_found else {}
        handles = set(h["name"] for h in model["handles"])
        for function in model["functions"]:
            name, line = function["name"], function["line"]
            node = nodes.get(name)
            if not self.version_found:
                pass
            elif node is None:
                self.problem(line, "%s is in no CUABI_X.Y node of abi/cuabi.map. Fix: add it to "
                             "the node of release %s" % (name, function["since"]))
            elif node != function["since"]:
                self.problem(line, "%s is marked since %s but abi/cuabi.map exports it in CUABI_%s. "
                             "Fix: mark it CUABI_SINCE(%s)%s" % (name, function["since"], node, node,
                                                                 " (unmarked means 1.0)" if node == "1.0" else ""))
            for param in function["params"]:
                what = "parameter %s of %s" % (param["name"], name)
                marked_out = param["direction"] in ("out", "inout")
                if param["name"].startswith("out_") and not marked_out:
                    self.problem(line, "%s is an output (out_*) but not marked. Fix: mark it "
                                 "CUABI_OUT or CUABI_INOUT" % what)
                if marked_out and not param["name"].startswith("out_"):
                    self.problem(line, "%s is marked %s but not named out_*. Fix: rename it "
                                 "out_%s" % (what, param["direction"], param["name"]))
                if marked_out and not param["pointer_depth"]:
                    self.problem(line, "%s is marked %s but is not a pointer" % (what, param["direction"]))
                if marked_out and param["pointer_depth"] == 2 and not param["explicit_ownership"]:
                    self.problem(line, "%s returns a pointer but says nothing of its ownership. Fix: "
                                 "mark it CUABI_OWNED (the caller destroys it) or CUABI_BORROWED"
                                 % what)
                if param["pointer_depth"] == 1 and param["pointee"] in handles and \
                        marked_out:
                    self.problem(line, "%s is a handle marked as an output" % what)


def strip_private(model):
    """The model as committed: the schema's keys only (the builder's lines and flags dropped)."""
    private = {"line", "explicit_ownership", "pointer", "pointer_depth", "pointee", "members"}

    def clean(value):
        if isinstance(value, dict):
            return dict((k, clean(v)) for k, v in value.items() if k not in private)
        if isinstance(value, list):
            return [clean(v) for v in value]
        return value
    return clean(model)


def build_with_builder(header_path):
    """(Builder after its build, the model as committed): for tools that also walk clang's cursors."""
    builder = Builder(header_path)
    model = builder.build()
    for family in model["families"]:
        family["prefix"] = family["members"][0]
    return builder, strip_private(model)


def build(header_path):
    """(model as committed, problems). Tools that need only the declarations (layout, lint) may
    use the model of a header whose release facts are incomplete and ignore the problems."""
    builder, model = build_with_builder(header_path)
    return model, builder.problems


def render(model):
    return json.dumps(model, indent=1, ensure_ascii=False) + "\n"


def load(path=DEFAULT_MODEL):
    with open(path) as handle:
        return json.load(handle)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("command", choices=["generate", "check"])
    parser.add_argument("--header", default=DEFAULT_HEADER)
    parser.add_argument("--out", default=DEFAULT_MODEL)
    parser.add_argument("--model", default=DEFAULT_MODEL)
    args = parser.parse_args()
    try:
        model, problems = build(args.header)
    except ModelError as error:
        print("FAIL: %s" % error)
        optional = os.environ.get("CUABI_ABI_TOOLS_OPTIONAL") == "1"
        return 77 if isinstance(error, ToolMissing) and optional else 1
    for problem in problems:
        print("FAIL: %s" % problem)
    if problems:
        return 1
    text = render(model)
    if args.command == "generate":
        with open(args.out, "w") as handle:
            handle.write(text)
        print("wrote %s: %d functions, %d structs, %d constants, %d families, %d handles" % (
            args.out, len(model["functions"]), len(model["structs"]), len(model["constants"]),
            len(model["families"]), len(model["handles"])))
        return 0
    try:
        with open(args.model) as handle:
            committed = handle.read()
    except OSError as error:
        print("FAIL: cannot read %s (%s). Fix: scripts/regenerate.sh" % (args.model, error))
        return 1
    if committed != text:
        print("FAIL: %s does not match %s. Fix: scripts/regenerate.sh, review and commit the "
              "model with the header" % (args.model, args.header))
        return 1
    print("PASS: %s matches %s" % (args.model, args.header))
    return 0


if __name__ == "__main__":
    sys.exit(main())
