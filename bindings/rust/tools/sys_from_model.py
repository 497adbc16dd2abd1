#!/usr/bin/env python3
"""Completes bindgen's translation of cuabi.h with the ABI model: cuabi-sys/src/bindings.rs.

bindgen (scripts/bindgen.sh) stays the translator of the structs, handles and PFN_cuabi_* types;
it runs once, without the header's constants and constant-family typedefs. This pass reads
bindgen's output on stdin and the model (abi/cuabi_model.json) and writes the file on stdout:

  - one `pub type` per constant family (`cuabi_graph_node_kind = i32`) and every constant typed
    by its family (`CUABI_GRAPH_NODE_KERNEL: cuabi_graph_node_kind`), or by its own type when it
    has none, each with the header's doc comment;
  - the header's doc comment on every handle, struct, struct field and PFN_cuabi_* type of
    bindgen's output (bindgen cannot take them from the header: its comments are plain C ones).

Doc text is escaped for rustdoc (brackets, angle brackets and stars are text, not links, HTML or
emphasis) and joined into paragraphs (an indented header line must not become a doctest).

usage: bindgen ... | sys_from_model.py MODEL > bindings.rs
"""
import json
import re
import sys

INTEGER_TYPES = {"int32_t": "i32", "uint32_t": "u32", "int64_t": "i64", "uint64_t": "u64"}
WIDTH = 120  # bindings/rust/rustfmt.toml's max_width


class ModelError(Exception):
    pass


def escape(text):
    return re.sub(r"([\\\[\]<>*])", r"\\\1", text)


def doc(text, indent=""):
    """`text` as /// lines: paragraphs (split at blank lines) joined and wrapped, escaped."""
    out = []
    for paragraph in re.split(r"\n\s*\n", (text or "").strip()):
        words = escape(" ".join(paragraph.split())).split()
        if not words:
            continue
        if out:
            out.append(indent + "///")
        line = ""
        for word in words:
            if line and len(indent) + 4 + len(line) + 1 + len(word) > WIDTH:
                out.append("%s/// %s" % (indent, line))
                line = ""
            line = (line + " " + word) if line else word
        out.append("%s/// %s" % (indent, line))
    return out


def rust_integer(c_type, what):
    if c_type not in INTEGER_TYPES:
        raise ModelError("%s has type %r, which has no Rust integer here" % (what, c_type))
    return INTEGER_TYPES[c_type]


def constants(model):
    lines = ["/* The constant families and constants, from the ABI model. */", ""]
    for family in model["families"]:
        lines += doc(family.get("doc"))
        lines.append("pub type %s = %s;" % (family["name"], rust_integer(family["type"], "family " + family["name"])))
    lines.append("")
    for constant in model["constants"]:
        lines += doc(constant.get("doc"))
        name, value = constant["name"], constant["value"]
        if constant["type"] == "string":
            data = value.encode() + b"\0"
            lines.append('pub const %s: &[u8; %dusize] = b"%s";' % (name, len(data), value.replace("\\", "\\\\").replace('"', '\\"') + "\\0"))
        elif constant.get("family"):
            lines.append("pub const %s: %s = %d;" % (name, constant["family"], value))
        else:
            lines.append("pub const %s: %s = %d;" % (name, rust_integer(constant["type"], "constant " + name), value))
    return lines + [""]


def annotate(bindgen, model):
    """bindgen's lines with the model's doc comments before the items and fields they describe."""
    handles = {h["name"]: h.get("doc") for h in model.get("handles", [])}
    structs = {s["name"]: s for s in model["structs"]}
    functions = {f["name"]: f.get("doc") for f in model["functions"]}
    out, fields = [], None
    for line in bindgen.split("\n"):
        struct = re.match(r"pub struct (\w+) \{", line)
        pfn = re.match(r"pub type PFN_(\w+) =", line)
        field = re.match(r"(\s+)pub (\w+): ", line)
        if struct and struct.group(1) in structs:
            docs, fields = structs[struct.group(1)].get("doc"), {f["name"]: f.get("doc") for f in structs[struct.group(1)]["fields"]}
            out += strip_attributes(out, doc(docs))
        elif struct and struct.group(1) in handles:
            out += strip_attributes(out, doc(handles[struct.group(1)]))
            fields = None
        elif pfn and pfn.group(1) in functions:
            out += doc(functions[pfn.group(1)])
        elif field and fields is not None and field.group(2) in fields:
            out += doc(fields[field.group(2)], field.group(1))
        elif line.startswith("}"):
            fields = None
        out.append(line)
    return out


def strip_attributes(out, lines):
    """Doc lines go above the item's #[derive]/#[repr] attributes: move them before those."""
    attributes = []
    while out and out[-1].startswith("#["):
        attributes.insert(0, out.pop())
    return lines + attributes


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: sys_from_model.py MODEL < bindgen-output > bindings.rs")
    try:
        with open(sys.argv[1]) as f:
            model = json.load(f)
        bindgen = sys.stdin.read()
        lines = constants(model) + annotate(bindgen, model)
    except (OSError, ValueError, KeyError, ModelError) as e:
        sys.exit("sys_from_model.py: %s. Fix: regenerate the model (scripts/regenerate.sh) or correct the header" % e)
    sys.stdout.write("\n".join(lines))


if __name__ == "__main__":
    main()
