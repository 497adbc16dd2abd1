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

usage: header_lint.py include/cuabi/cuabi.h
"""
import os
import re
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abi_tools  # noqa: E402
from cuabi_header import (SIGNED_LITERAL, UNSIGNED_LITERAL, Header, HeaderError,  # noqa: E402
                          initializer_struct_name)


def normalize_type(text):
    """'const char *' and 'const char*' are the same type."""
    return re.sub(r"\s*\*\s*", "*", " ".join(text.split())).strip()


def signature(function):
    return (normalize_type(function.return_type),
            tuple(normalize_type(p.type) for p in function.params if p.type != "void"))


class Lint(object):
    def __init__(self, header):
        self.header = header
        self.problems = []

    def problem(self, line, rule, message):
        self.problems.append("%s:%d: %s: %s" % (self.header.path, line, rule, message))

    def keyword_lines(self, pattern):
        for number, line in enumerate(self.header.code.split("\n"), 1):
            if re.search(pattern, line):
                yield number

    def run(self):
        header = self.header
        self.problems.extend(header.errors)
        for line in self.keyword_lines(r"\bunion\b"):
            self.problem(line, "union", "unions are not FFI-safe; use separate "
                         "fields or functions")
        for line in self.keyword_lines(r"\benum\b"):
            self.problem(line, "enum", "C enum types have no fixed size; #define "
                         "the constants and use int32_t or uint32_t")
        for line in self.keyword_lines(r"\.\.\."):
            self.problem(line, "variadic", "variadic functions cannot be called from most FFIs")
        for define in header.defines:
            if define.params is not None:
                self.problem(define.line, "macro", "%s%s is a function-like macro; bindings "
                             "cannot call macros: provide a function" % (define.name, define.params))
        self.check_structs()
        for function in header.functions + header.pfns:
            self.check_signature(function)
        self.check_pfns()
        self.check_naming()
        self.check_literals()
        self.check_options()
        for text, line in header.others:
            self.problem(line, "declaration", "'%s' is not a CUABI_API function, PFN_ typedef, "
                         "typedef or struct; a prototype without CUABI_API is not exported" % text[:80])
        return self.problems

    def check_type(self, type_text, line, what):
        words = set(re.findall(r"\w+", type_text))
        if words & {"bool", "_Bool"}:
            self.problem(line, "type", "%s is a bool; booleans are uint32_t" % what)
        if "long" in words:
            self.problem(line, "type", "%s uses long, whose size differs between platforms; "
                         "use int64_t/uint64_t" % what)

    def struct_names(self):
        names = set()
        for struct in self.header.structs:
            names.update([struct.name, struct.tag])
        for tag, name, _ in self.header.opaque:
            names.update([tag, name])
        names.discard("")
        return names

    def is_by_value_struct(self, type_text):
        if "*" in type_text or "[" in type_text or "(" in type_text:
            return False
        words = [w for w in re.findall(r"\w+", type_text) if w not in ("const", "volatile", "struct")]
        return len(words) == 1 and words[0] in self.struct_names()

    def check_structs(self):
        for struct in self.header.structs:
            for field in struct.fields:
                what = "%s.%s" % (struct.name, field.name)
                if field.bit_width is not None:
                    self.problem(field.line, "bit-field", "%s is a bit-field; their layout is up "
                                 "to the compiler: use a whole uint32_t and flags" % what)
                self.check_type(field.type, field.line, what)

    def check_signature(self, function):
        if self.is_by_value_struct(function.return_type):
            self.problem(function.line, "by-value", "%s returns %s by value; return it through an "
                         "out_* pointer" % (function.name, function.return_type))
        self.check_type(function.return_type, function.line, "the return type of %s" % function.name)
        for param in function.params:
            what = "parameter '%s' of %s" % (param.name or param.text, function.name)
            if self.is_by_value_struct(param.type):
                self.problem(function.line, "by-value", "%s passes %s by value; pass a pointer" % (what, param.type))
            self.check_type(param.type, function.line, what)

    def check_pfns(self):
        prototypes = dict((f.name, f) for f in self.header.functions)
        pfns = dict((p.name[len("PFN_"):], p) for p in self.header.pfns)
        for name in sorted(set(prototypes) - set(pfns)):
            self.problem(prototypes[name].line, "pfn", "%s has no PFN_%s typedef"
                         % (name, name))
        for name in sorted(set(pfns) - set(prototypes)):
            self.problem(pfns[name].line, "pfn", "PFN_%s has no CUABI_API function %s" % (name, name))
        for name in sorted(set(pfns) & set(prototypes)):
            if signature(pfns[name]) != signature(prototypes[name]):
                self.problem(pfns[name].line, "pfn", "PFN_%s is %s but %s is %s" % (
                    name, signature(pfns[name]), name, signature(prototypes[name])))

    def check_naming(self):
        header = self.header
        for function in header.functions:
            if not function.name.startswith("cuabi_"):
                self.problem(function.line, "naming", "function %s does not start with cuabi_"
                             % function.name)
        for struct in header.structs:
            if not struct.name.startswith("cuabi_") or struct.tag != struct.name:
                self.problem(struct.line, "naming", "struct %s: write typedef struct cuabi_x "
                             "{...} cuabi_x;" % struct.name)
        for tag, name, line in header.opaque:
            if not name.startswith("cuabi_") or tag != name:
                self.problem(line, "naming", "handle %s: write typedef struct cuabi_x cuabi_x;" % name)
        for name, _, line in header.typedefs:
            if not name.startswith("cuabi_"):
                self.problem(line, "naming", "typedef %s does not start with cuabi_" % name)
        for define in header.constants():
            if not define.name.startswith("CUABI_"):
                self.problem(define.line, "naming", "constant %s does not start with CUABI_"
                             % define.name)

    def check_literals(self):
        for define in self.header.constants():
            value = define.value
            if value.startswith(("{", '"')):
                continue  # an initializer or a string
            if SIGNED_LITERAL.match(value):
                if not -2 ** 31 <= int(value) < 2 ** 31:
                    self.problem(define.line, "literal", "%s is %s, outside int32_t: decimal constants "
                                 "are int32_t; write a u suffix if it is an unsigned value" % (define.name, value))
            elif not UNSIGNED_LITERAL.match(value):
                self.problem(define.line, "literal", "%s is '%s': write a decimal literal (an int32_t "
                             "value) or a u-suffixed one (a flag or unsigned value) so that every "
                             "generator types it" % (define.name, value))

    def check_options(self):
        header = self.header
        initializers = dict((d.name, d) for d in header.initializers())
        functions = set(header.function_names())
        for define in initializers.values():
            if header.struct(initializer_struct_name(define.name)) is None:
                self.problem(define.line, "options", "%s initializes no struct %s" % (
                    define.name, initializer_struct_name(define.name)))
        for struct in header.structs:
            names = [f.name for f in struct.fields]
            if "struct_size" in names:
                first = struct.fields[0]
                if first.name != "struct_size" or first.type != "uint32_t":
                    self.problem(struct.line, "options", "%s: struct_size must be the first field "
                                 "and a uint32_t" % struct.name)
                macro = struct.name.upper() + "_INIT"
                if macro not in initializers:
                    self.problem(struct.line, "options", "%s has struct_size but no %s macro" % (struct.name, macro))
                if struct.name + "_init" not in functions:
                    self.problem(struct.line, "options", "%s has no %s_init() function for FFI "
                                 "users, who cannot use macros" % (struct.name, struct.name))
            elif struct.name.endswith(("_options", "_config", "_info", "_stats", "_attributes")) or \
                    struct.name == "cuabi_counters":
                self.problem(struct.line, "options", "%s must start with uint32_t struct_size" % struct.name)


def main(argv):
    if len(argv) != 2:
        print(__doc__)
        return 2
    try:
        header = Header(argv[1], strict=False)
    except HeaderError as error:
        abi_tools.report([str(error)], "")
    abi_tools.report(Lint(header).run(), "%s keeps to the FFI-safe subset (%d functions, %d "
                     "structs, %d constants)" % (argv[1], len(header.functions), len(header.structs),
                                                 len(header.constants())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
