"""What every binding generator must see in the installed cuabi.h, derived from the header itself.

The lists come from the ABI model of the header (abi/model.py: clang's parse of the functions,
structs and #defines; every function has its PFN_ typedef, which the header lint checks) and the numbers from the C compiler (abi/layout.py compiles a probe that prints every
struct size, field offset and constant). So a function, struct or constant added to the header is
checked by every generator the moment it is written, and C is the reference for every number.

Each generator probe reports what it saw as lines in one vocabulary, and compare() sets them
against the lines built here:

  struct cuabi_x size=16             the struct's size
  field cuabi_x.flags offset=4       each field's offset
  constant CUABI_Y value=3 type=i32  each integer #define: decimal literals are int32_t (i32),
                                     u-suffixed ones unsigned of C's width (u32, u64); probes of
                                     generators whose constants carry no type (cgo, cffi) report
                                     the value only
  string CUABI_VERSION_STRING value=1.0.0
  pfn PFN_cuabi_z                    each function-pointer typedef
  function cuabi_z                   each prototype (for generators that read prototypes)

The CUABI_*_INIT brace initializers are C conveniences that no FFI carries (each struct has an
_init() function instead), so they are not expected from any generator.
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ABI_DIR = os.path.join(HERE, "..", "..", "abi")
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, ABI_DIR)
import layout  # noqa: E402
import model as abi_model  # noqa: E402

# The kinds a probe may report; each probe says which of them its generator can see.
STRUCTS, CONSTANTS, STRINGS, PFNS, FUNCTIONS = "struct", "constant", "string", "pfn", "function"


class Expected(object):
    """The header's declarations with C's numbers, and the rules a generator is held to."""

    def __init__(self, header_path, cc):
        self.header_path = header_path
        self.model, _ = abi_model.build(header_path)  # the declarations; release facts not needed
        self.problems = []  # the header itself breaks the constants rule
        measured = layout.keyed(layout.measure(header_path, cc))
        self.structs = []    # [(name, size, [(field, offset)])]
        for struct in self.model["structs"]:
            size = _number(measured[("struct", struct["name"])], "size")
            fields = [(f["name"], _number(measured[("field", "%s.%s" % (struct["name"], f["name"]))], "offset"))
                      for f in struct["fields"]]
            self.structs.append((struct["name"], size, fields))
        self.integers = []   # [(name, value, type)] with type i32, u32 or u64
        self.strings = []    # [(name, value)]
        for constant in self.model["constants"]:
            if constant["type"] == "string":
                self.strings.append((constant["name"], constant["value"]))
                continue
            self.integers.append((constant["name"],) + self._integer(constant, measured[("constant", constant["name"])]))
        self.functions = [f["name"] for f in self.model["functions"]]
        self.pfns = ["PFN_" + name for name in self.functions]
        self.initializers = [s["init_macro"] for s in self.model["structs"] if s["init_macro"]]

    def _integer(self, constant, measured):
        """(value, type) of an integer constant: its spelling says the type, C confirms it."""
        value = int(re.search(r"value=(-?\d+)", measured).group(1))
        size = _number(measured, "size")
        c_signed = measured.endswith(" signed")
        name = constant["name"]
        if constant["type"] == "int32_t":
            expected = "i32"
            if not (c_signed and size == 4):
                self.problems.append("%s is a decimal literal, so bindings type it int32_t, but C "
                                     "makes it a %d-byte %s value. Fix: keep enumerated values within "
                                     "int32_t" % (name, size, "signed" if c_signed else "unsigned"))
        elif constant["type"] in ("uint32_t", "uint64_t"):
            expected = "u%d" % (8 * size)
            if c_signed:
                self.problems.append("%s is u-suffixed but C sees a signed value" % name)
        else:
            expected = "?"
            self.problems.append("%s: %s is '%s', not a literal, so generators cannot tell its "
                                 "type (bindgen drops or mistypes expressions). Fix: write a decimal "
                                 "literal (an int32_t value) or a u-suffixed one (a flag or unsigned "
                                 "value)" % (self.header_path, name, constant["value"]))
        return value, expected

    def lines(self, kinds, typed_constants=True):
        """{(kind, name): text} of everything a generator that sees `kinds` must report."""
        result = {}
        if STRUCTS in kinds:
            for name, size, fields in self.structs:
                result[("struct", name)] = "size=%d" % size
                for field, offset in fields:
                    result[("field", "%s.%s" % (name, field))] = "offset=%d" % offset
        if CONSTANTS in kinds:
            for name, value, kind in self.integers:
                result[("constant", name)] = ("value=%d type=%s" % (value, kind) if typed_constants
                                              else "value=%d" % value)
        if STRINGS in kinds:
            for name, value in self.strings:
                result[("string", name)] = "value=%s" % value
        if PFNS in kinds:
            for name in self.pfns:
                result[("pfn", name)] = ""
        if FUNCTIONS in kinds:
            for name in self.functions:
                result[("function", name)] = ""
        return result


def _number(text, key):
    return int(re.search(r"\b%s=(\d+)" % key, text).group(1))


def parse_report(text):
    """A probe's output lines -> {(kind, name): rest}; other lines are ignored."""
    result = {}
    for line in text.splitlines():
        parts = line.strip().split(None, 2)
        if len(parts) >= 2 and parts[0] in (STRUCTS, "field", CONSTANTS, STRINGS, PFNS, FUNCTIONS):
            result[(parts[0], parts[1])] = parts[2] if len(parts) > 2 else ""
    return result


def compare(generator, expected, seen):
    """Problems, one per line that differs between C (`expected`) and the generator (`seen`)."""
    problems = []
    for key, want in sorted(expected.items()):
        kind, name = key
        if key not in seen:
            problems.append("%s: %s %s is missing from what it generated" % (generator, kind, name))
        elif seen[key] != want:
            problems.append("%s: %s %s is '%s', C says '%s'" % (generator, kind, name, seen[key], want))
    for key in sorted(set(seen) - set(expected)):
        problems.append("%s reported %s %s, which the header does not declare" % ((generator,) + key))
    return problems
