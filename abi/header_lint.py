#!/usr/bin/env python3
"""Rejects what a binding generator or an FFI cannot use safely.

Rules, each reported as `header:line: rule: what`:
  union         no unions anywhere
  enum          no C enum types anywhere (their size is not fixed; #define the constants)
  bit-field     no bit-fields in structs
  variadic      no variadic functions or function pointers
  by-value      no struct passed or returned by value (only pointers to structs)
  type          no bool/_Bool (use uint32_t) and no long (its size differs between platforms)
  macro         no function-like macros (bindings cannot call them; write a function)
  pfn           every CUABI_API function has a PFN_ typedef of the same signature, and vice versa
  naming        functions cuabi_*, types cuabi_*, constants CUABI_*
  literal       every integer constant is a literal generators can type: plain decimal for an
                int32_t value (statuses, kinds, modes), u-suffixed for a flag or unsigned value;
                no expressions, casts or other macros (bindgen drops UINT64_MAX, types (1u << 3)
                as its default)
  options       a struct that starts with struct_size has a CUABI_*_INIT macro, and an
                *_options or *_config struct a cuabi_*_init() function
  declaration   nothing but the kinds above: a prototype without CUABI_API would not be exported

The header is read by clang (abi/model.py's parse), not by patterns over its text.

usage: header_lint.py include/cuabi/cuabi.h
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402
import model as abi_model  # noqa: E402


def canonical(type_):
    return type_.get_canonical().spelling


class Lint(object):
    def __init__(self, builder, model):
        self.builder = builder
        self.model = model
        self.path = builder.header_path
        self.problems = []

    def problem(self, line, rule, message):
        self.problems.append("%s:%d: %s: %s" % (self.path, line, rule, message))

    def run(self):
        for cursor in self.builder.cursors:
            self.declaration(cursor)
        self.check_pfns()
        self.check_literals()
        self.check_options()
        return self.problems

    def walk(self, cursor):
        yield cursor
        for child in cursor.get_children():
            for item in self.walk(child):
                yield item

    def declaration(self, cursor):
        kind, line, name = cursor.kind.name, cursor.location.line, cursor.spelling
        for node in self.walk(cursor):
            if node.kind.name == "UNION_DECL":
                self.problem(node.location.line, "union", "unions are not FFI-safe; use separate "
                             "fields or functions")
            if node.kind.name == "ENUM_DECL":
                self.problem(node.location.line, "enum", "C enum types have no fixed size; #define "
                             "the constants and use int32_t or uint32_t")
        if kind == "MACRO_DEFINITION":
            tokens = list(cursor.get_tokens())
            if name.startswith("CUABI_") and name not in abi_model.MACHINERY and len(tokens) > 1 and \
                    tokens[1].spelling == "(" and tokens[1].extent.start.offset == tokens[0].extent.end.offset:
                self.problem(line, "macro", "%s is a function-like macro; bindings cannot call "
                             "macros: provide a function" % name)
            elif not name.startswith("CUABI_") and not name.startswith("_"):
                self.problem(line, "naming", "constant %s does not start with CUABI_" % name)
        elif kind == "TYPEDEF_DECL":
            self.typedef(cursor)
        elif kind == "FUNCTION_DECL":
            self.function(cursor)
        elif kind in ("STRUCT_DECL", "MACRO_INSTANTIATION", "INCLUSION_DIRECTIVE", "UNEXPOSED_DECL"):
            pass  # structs are checked through their typedef; extern "C" blocks are C++ only
        else:
            self.problem(line, "declaration", "'%s' (%s) is not a CUABI_API function, PFN_ typedef, "
                         "typedef or struct" % (name, kind))

    def typedef(self, cursor):
        name, line = cursor.spelling, cursor.location.line
        if not name.startswith(("cuabi_", "PFN_cuabi_")):
            self.problem(line, "naming", "typedef %s does not start with cuabi_" % name)
        underlying = cursor.underlying_typedef_type
        record = underlying.get_declaration()
        if record.kind.name == "STRUCT_DECL" and record.spelling != name:
            self.problem(line, "naming", "struct %s: write typedef struct %s {...} %s; (or "
                         "typedef struct %s %s; for a handle)" % (name, name, name, name, name))
        if record.kind.name == "STRUCT_DECL" and record.is_definition():
            for field in record.get_children():
                if field.kind.name != "FIELD_DECL":
                    continue
                what = "%s.%s" % (name, field.spelling)
                if field.is_bitfield():
                    self.problem(field.location.line, "bit-field", "%s is a bit-field; their layout "
                                 "is up to the compiler: use a whole uint32_t and flags" % what)
                self.check_type(field.type, field.location.line, what)
        pointee = underlying.get_pointee() if underlying.kind.name == "POINTER" else None
        if pointee is not None and pointee.kind.name == "FUNCTIONPROTO" and pointee.is_function_variadic():
            self.problem(line, "variadic", "%s is variadic; variadic functions cannot be called from "
                         "most FFIs" % name)

    def function(self, cursor):
        name, line = cursor.spelling, cursor.location.line
        if "api" not in abi_model.annotations(cursor):
            self.problem(line, "declaration", "%s is not declared CUABI_API; a prototype without "
                         "CUABI_API is not exported" % name)
        if not name.startswith("cuabi_"):
            self.problem(line, "naming", "function %s does not start with cuabi_" % name)
        if cursor.type.kind.name == "FUNCTIONPROTO" and cursor.type.is_function_variadic():
            self.problem(line, "variadic", "%s is variadic; variadic functions cannot be called from "
                         "most FFIs" % name)
        if self.is_struct(cursor.result_type):
            self.problem(line, "by-value", "%s returns %s by value; return it through an out_* "
                         "pointer" % (name, cursor.result_type.spelling))
        self.check_type(cursor.result_type, line, "the return type of %s" % name)
        for param in cursor.get_arguments():
            what = "parameter '%s' of %s" % (param.spelling, name)
            if self.is_struct(param.type):
                self.problem(line, "by-value", "%s passes %s by value; pass a pointer" % (what, param.type.spelling))
            self.check_type(param.type, line, what)

    @staticmethod
    def is_struct(type_):
        return type_.get_canonical().kind.name == "RECORD"

    def check_type(self, type_, line, what):
        words = set(re.findall(r"\w+", type_.spelling + " " + canonical(type_)))
        # int64_t is long on LP64: judge the spelled type, and its canonical one only past typedefs of ours
        spelled = set(re.findall(r"\w+", type_.spelling))
        if words & {"bool", "_Bool"}:
            self.problem(line, "type", "%s is a bool; booleans are uint32_t" % what)
        if "long" in spelled:
            self.problem(line, "type", "%s uses long, whose size differs between platforms; "
                         "use int64_t/uint64_t" % what)

    def check_pfns(self):
        prototypes = dict((c.spelling, c) for c in self.builder.cursors if c.kind.name == "FUNCTION_DECL")
        pfns = dict((c.spelling[len("PFN_"):], c) for c in self.builder.cursors
                    if c.kind.name == "TYPEDEF_DECL" and c.spelling.startswith("PFN_"))
        for name in sorted(set(prototypes) - set(pfns)):
            self.problem(prototypes[name].location.line, "pfn", "%s has no PFN_%s typedef" % (name, name))
        for name in sorted(set(pfns) - set(prototypes)):
            self.problem(pfns[name].location.line, "pfn", "PFN_%s has no CUABI_API function %s" % (name, name))
        for name in sorted(set(pfns) & set(prototypes)):
            pfn = pfns[name].underlying_typedef_type.get_pointee()
            if canonical(pfn) != canonical(prototypes[name].type):
                self.problem(pfns[name].location.line, "pfn", "PFN_%s is %s but %s is %s" % (
                    name, canonical(pfn), name, canonical(prototypes[name].type)))

    def check_literals(self):
        lines = dict((c.spelling, c.location.line) for c in self.builder.cursors
                     if c.kind.name == "MACRO_DEFINITION")
        for constant in self.model["constants"]:
            name, value, line = constant["name"], constant["value"], lines.get(constant["name"], 0)
            if constant["type"] == "unknown":
                self.problem(line, "literal", "%s is '%s': write a decimal literal (an int32_t "
                             "value) or a u-suffixed one (a flag or unsigned value) so that every "
                             "generator types it" % (name, value))
            elif constant["type"] == "int32_t" and not -2 ** 31 <= value < 2 ** 31:
                self.problem(line, "literal", "%s is %s, outside int32_t: decimal constants are "
                             "int32_t; write a u suffix if it is an unsigned value" % (name, value))

    def check_options(self):
        functions = set(f["name"] for f in self.model["functions"])
        for struct in self.model["structs"]:
            name, fields = struct["name"], struct["fields"]
            line = next(c.location.line for c in self.builder.cursors if c.spelling == name)
            if any(f["name"] == "struct_size" for f in fields):
                if fields[0]["name"] != "struct_size" or fields[0]["type"] != "uint32_t":
                    self.problem(line, "options", "%s: struct_size must be the first field and a "
                                 "uint32_t" % name)
                if not struct["init_macro"]:
                    self.problem(line, "options", "%s has struct_size but no %s_INIT macro" % (name, name.upper()))
                if name + "_init" not in functions:
                    self.problem(line, "options", "%s has no %s_init() function for FFI users, who "
                                 "cannot use macros" % (name, name))
            elif name.endswith(("_options", "_config", "_info", "_stats", "_attributes")) or \
                    name == "cuabi_counters":
                self.problem(line, "options", "%s must start with uint32_t struct_size" % name)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    try:
        builder, model = abi_model.build_with_builder(argv[1])
    except abi_model.ModelError as error:
        abi_tools.report([str(error)], "")
    abi_tools.report(Lint(builder, model).run(), "%s keeps to the FFI-safe subset (%d functions, %d "
                     "structs, %d constants)" % (argv[1], len(model["functions"]), len(model["structs"]),
                                                 len(model["constants"])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
