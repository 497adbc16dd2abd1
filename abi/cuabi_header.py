"""Reads include/cuabi/cuabi.h the way the ABI checks need it.

The header keeps to a plain style: typedef'd structs of simple fields, #define'd
constants, one declaration per statement. So this is a small reader over comment-free text, not a
C parser: it finds CUABI_API functions, PFN_ typedefs, structs with their fields, opaque handle
types and #defines, each with its line number. Anything it does not understand raises HeaderError
naming the line, rather than being guessed at: the checks built on it must never pass by skipping.

Every list is derived from the header text, so new functions, structs and constants are covered
as soon as they are written.
"""
import re


# The two spellings of an integer constant (the header's "Constants" convention): a plain decimal
# literal is an int32_t value, a u-suffixed one a flag or unsigned value.
SIGNED_LITERAL = re.compile(r"^-?[0-9]+$")
UNSIGNED_LITERAL = re.compile(r"^(0[xX][0-9A-Fa-f]+|[0-9]+)[uU]$")


class HeaderError(Exception):
    pass


class Param(object):
    def __init__(self, text, type_text, name):
        self.text = text          # as written, e.g. "const char* const* names"
        self.type = type_text     # without the name, e.g. "const char* const*"
        self.name = name          # may be "" (unnamed) or "void"


class Function(object):
    """A CUABI_API prototype or a PFN_ typedef (name is then "PFN_cuabi_...")."""

    def __init__(self, name, return_type, params, variadic, line):
        self.name = name
        self.return_type = return_type
        self.params = params
        self.variadic = variadic
        self.line = line


class Field(object):
    def __init__(self, name, type_text, dims, bit_width, line):
        self.name = name
        self.type = type_text
        self.dims = dims            # e.g. ["3"] for grid[3]
        self.bit_width = bit_width  # None unless a bit-field
        self.line = line


class Struct(object):
    def __init__(self, tag, name, fields, line):
        self.tag = tag
        self.name = name
        self.fields = fields
        self.line = line


class Define(object):
    def __init__(self, name, params, value, depth, line):
        self.name = name
        self.params = params  # None for an object-like macro, else the parameter text
        self.value = value
        self.depth = depth    # #if nesting depth where it is defined
        self.line = line


def _blank(match):
    """Replaces a comment by spaces, keeping its newlines so line numbers stay right."""
    return re.sub(r"[^\n]", " ", match.group(0))


_TOKEN = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)


def strip_comments(text):
    return _TOKEN.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else _blank(m), text)


def _split_top_level(text, separator):
    """Splits at `separator` outside (), [] and {}."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif ch == separator and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def _squash(text):
    return " ".join(text.split())


_DECLARATOR = re.compile(r"^(.*?)(\w+)\s*((?:\[[^\]]*\]\s*)*)$", re.S)


def _split_declarator(text):
    """'const char* const* names[3]' -> ('const char* const*', 'names', ['3'])."""
    match = _DECLARATOR.match(text.strip())
    if not match:
        return None
    dims = re.findall(r"\[([^\]]*)\]", match.group(3))
    return _squash(match.group(1)), match.group(2), [_squash(d) for d in dims]


_TYPE_WORDS = {"const", "volatile", "restrict", "signed", "unsigned", "short", "long", "int",
               "char", "float", "double", "void", "struct", "_Bool"}


def _parse_param(text):
    text = _squash(text)
    pointer = re.search(r"\(\s*\*\s*(\w*)\s*\)", text)  # a function-pointer parameter
    if pointer:
        name = pointer.group(1)
        return Param(text, text.replace(name, "", 1) if name else text, name)
    if text == "void":
        return Param(text, "void", "void")
    split = _split_declarator(text)
    if split is None or not split[0] or split[1] in _TYPE_WORDS:
        return Param(text, text, "")  # unnamed: every word belongs to the type
    type_text, name, dims = split
    return Param(text, type_text + "".join("[%s]" % d for d in dims), name)


def _parse_params(text):
    text = text.strip()
    if not text:
        raise HeaderError("empty parameter list: write (void)")
    params, variadic = [], False
    for part in _split_top_level(text, ","):
        if part.strip() == "...":
            variadic = True
        else:
            params.append(_parse_param(part))
    return params, variadic


class Header(object):
    """The parsed header. `path` is for messages; `text` defaults to the file's contents.

    A struct this reader cannot lay out (one with a nested struct or union) raises HeaderError,
    unless strict is False: then it is left out of `structs` and its error kept in `errors`, so
    that the lint can report it with everything else."""

    def __init__(self, path, text=None, strict=True):
        self.path = path
        self.strict = strict
        self.errors = []
        if text is None:
            with open(path) as handle:
                text = handle.read()
        self.text = text
        self.functions = []   # CUABI_API prototypes
        self.pfns = []        # PFN_ typedefs
        self.structs = []     # typedef struct T { ... } T;
        self.opaque = []      # (tag, name, line) of typedef struct T T;
        self.typedefs = []    # (name, type text, line) of other typedefs
        self.defines = []
        self.others = []      # (text, line) of statements that are none of the above
        self.guard_depth = 0
        self.code = self._scan_directives(strip_comments(text))
        self._scan_statements()

    # --- preprocessor -------------------------------------------------------------------------
    def _scan_directives(self, text):
        """Records #defines and returns the text with directive lines and C++-only blocks blanked."""
        lines = text.split("\n")
        out, stack, directives = [], [], []
        i = 0
        while i < len(lines):
            line, first = lines[i], i
            if line.lstrip().startswith("#"):
                while line.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    line = line[:-1] + " " + lines[i]
                directives.append((line.strip()[1:].strip(), first + 1, len(stack)))
                self._directive(line.strip()[1:].strip(), first + 1, stack)
                out.extend([""] * (i - first + 1))
            else:
                out.append("" if "__cplusplus" in stack else line)
            i += 1
        if len(directives) >= 2:
            guard = re.match(r"ifndef\s+(\w+)$", directives[0][0])
            if guard and re.match(r"define\s+%s\s*$" % guard.group(1), directives[1][0]):
                self.guard_depth = 1
        return "\n".join(out)

    def _directive(self, directive, line, stack):
        keyword = re.match(r"(\w*)", directive).group(1)
        if keyword in ("if", "ifdef", "ifndef"):
            stack.append("__cplusplus" if "__cplusplus" in directive else directive)
        elif keyword == "endif":
            if not stack:
                raise HeaderError("%s:%d: #endif without #if" % (self.path, line))
            stack.pop()
        elif keyword == "define":
            match = re.match(r"define\s+(\w+)(\([^)]*\))?(.*)$", directive)
            if not match:
                raise HeaderError("%s:%d: cannot read '#%s'" % (self.path, line, directive))
            self.defines.append(Define(match.group(1), match.group(2), match.group(3).strip(),
                                       len(stack), line))

    # --- declarations -------------------------------------------------------------------------
    def _line_of(self, position):
        return self.code.count("\n", 0, position) + 1

    def _scan_statements(self):
        depth, start = 0, 0
        for i, ch in enumerate(self.code):
            if ch in "({[":
                depth += 1
            elif ch in ")}]":
                depth -= 1
            elif ch == ";" and depth == 0:
                text = self.code[start:i]
                stripped = text.lstrip()
                if stripped:
                    self._statement(stripped, self._line_of(start + len(text) - len(stripped)))
                start = i + 1
        if self.code[start:].strip():
            raise HeaderError("%s:%d: text after the last ';': '%s'" % (
                self.path, self._line_of(start), _squash(self.code[start:])[:60]))

    def _statement(self, text, line):
        flat = _squash(text)
        where = "%s:%d" % (self.path, line)
        if re.match(r"typedef\s+struct\s+\w*\s*\{", text):
            try:
                self.structs.append(self._struct(text, line))
            except HeaderError as error:
                if self.strict:
                    raise
                self.errors.append(str(error))
        elif re.match(r"typedef struct (\w+) (\w+)$", flat):
            tag, name = re.match(r"typedef struct (\w+) (\w+)$", flat).groups()
            self.opaque.append((tag, name, line))
        elif flat.startswith("typedef") and "(" in flat:
            match = re.match(r"typedef\s+(.*?)\(\s*\*\s*(\w+)\s*\)\s*\((.*)\)$", flat)
            if not match:
                raise HeaderError("%s: cannot read '%s'" % (where, flat))
            if match.group(2).startswith("PFN_"):
                params, variadic = self._params(match.group(3), where)
                self.pfns.append(Function(match.group(2), _squash(match.group(1)), params,
                                          variadic, line))
            else:
                self.typedefs.append((match.group(2), flat, line))
        elif flat.startswith("typedef"):
            split = _split_declarator(flat[len("typedef"):])
            if split is None:
                raise HeaderError("%s: cannot read '%s'" % (where, flat))
            self.typedefs.append((split[1], split[0], line))
        elif re.search(r"\bCUABI_API\b", flat):
            match = re.match(r"CUABI_API\s+(.*?)\b(\w+)\s*\((.*)\)$", flat)
            if not match:
                raise HeaderError("%s: cannot read the declaration '%s'" % (where, flat))
            params, variadic = self._params(match.group(3), where)
            self.functions.append(Function(match.group(2), _squash(match.group(1)), params,
                                           variadic, line))
        else:
            self.others.append((flat, line))

    def _params(self, text, where):
        try:
            return _parse_params(text)
        except HeaderError as error:
            raise HeaderError("%s: %s" % (where, error))

    def _struct(self, text, line):
        match = re.match(r"typedef\s+struct\s+(\w*)\s*\{(.*)\}\s*(\w+)\s*$", text, re.S)
        if not match:
            raise HeaderError("%s:%d: cannot read the struct definition" % (self.path, line))
        tag, body, name = match.groups()
        if "{" in body:
            raise HeaderError("%s:%d: struct %s defines a struct or union inside itself; "
                              "define it separately" % (self.path, line, name))
        body_start = text.index("{") + 1
        fields, offset = [], 0
        for declaration in body.split(";"):
            field_line = line + text.count("\n", 0, body_start + offset + len(declaration)
                                           - len(declaration.lstrip()))
            offset += len(declaration) + 1
            if declaration.strip():
                fields.extend(self._fields(declaration, name, field_line))
        return Struct(tag, name, fields, line)

    def _fields(self, declaration, struct_name, line):
        flat = _squash(declaration)
        where = "%s:%d: %s" % (self.path, line, struct_name)
        bit = re.match(r"^(.*?)\s*:\s*(\w+)$", flat)
        if bit:
            split = _split_declarator(bit.group(1))
            if split is None:
                raise HeaderError("%s: cannot read field '%s'" % (where, flat))
            return [Field(split[1], split[0], split[2], bit.group(2), line)]
        pointer = re.search(r"\(\s*\*\s*(\w+)\s*\)", flat)
        if pointer:
            return [Field(pointer.group(1), flat.replace(pointer.group(1), "", 1), [], None, line)]
        declarators = _split_top_level(flat, ",")
        first = _split_declarator(declarators[0])
        if first is None or not first[0]:
            raise HeaderError("%s: cannot read field '%s'" % (where, flat))
        fields = [Field(first[1], first[0], first[2], None, line)]
        base = first[0].rstrip("* ")
        for extra in declarators[1:]:
            split = _split_declarator(extra)
            if split is None:
                raise HeaderError("%s: cannot read field '%s'" % (where, flat))
            fields.append(Field(split[1], _squash(base + " " + split[0]), split[2], None, line))
        return fields

    # --- derived views ------------------------------------------------------------------------
    def function_names(self):
        return [f.name for f in self.functions]

    def struct(self, name):
        for candidate in self.structs:
            if candidate.name == name:
                return candidate
        return None

    def constants(self):
        """Object-like #defines with a value outside any #if other than the include guard: the
        public constants. Definitions inside #if blocks are build configuration (CUABI_API)."""
        return [d for d in self.defines
                if d.params is None and d.value and d.depth == self.guard_depth]

    def initializers(self):
        """The constants that are brace initializers (CUABI_*_INIT)."""
        return [d for d in self.constants() if d.value.startswith("{")]

    def constant(self, name):
        for define in self.constants():
            if define.name == name:
                return define
        return None


def initializer_struct_name(macro_name):
    """CUABI_LAUNCH_CONFIG_INIT -> cuabi_launch_config (the naming rule the lint enforces)."""
    if macro_name.endswith("_INIT"):
        return macro_name[:-len("_INIT")].lower()
    return None
