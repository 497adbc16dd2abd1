"""bindgen (Debian's 0.60) through scripts/bindgen.sh, the documented command line.

The generated Rust goes into a throwaway crate. `cargo test --offline` compiles it with warnings
as errors and runs bindgen's own layout tests (one per struct: size, alignment, every field
offset as clang computed them). A generated main() then prints, through Rust's own view of the
bindings, every struct size and field offset (measured on a MaybeUninit value, as bindgen's tests do, so
Debian's older rustc works too), every constant's value and
Rust type (i32 / u32 / u64), the version string and each PFN_ type, for comparison with C.
bindgen.sh hides the prototypes (CUABI_NO_PROTOTYPES: the bindings dlopen the library), so
functions are checked through their PFN_ types.
"""
import os

import expected as ex
from tool import require, run_clean, write

KINDS = (ex.STRUCTS, ex.CONSTANTS, ex.STRINGS, ex.PFNS)
TYPED_CONSTANTS = True

RUST_KEYWORDS = set("""as async await break const continue crate dyn else enum extern false fn for if
impl in let loop match mod move mut pub ref return self static struct super trait true type unsafe
use where while abstract become box do final macro override priv typeof unsized virtual yield try
gen""".split())

CARGO_TOML = """[package]
name = "cuabi-bindgen-probe"
version = "0.0.0"
edition = "2021"
publish = false

[lib]
path = "src/lib.rs"

[[bin]]
name = "probe"
path = "src/main.rs"
"""

# The attributes every crate including bindgen output needs (C names are not Rust style).
LIB_RS = """#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]
include!("bindings.rs");
"""


def field(name):
    """bindgen renames a field that is a Rust keyword by appending an underscore."""
    return name + "_" if name in RUST_KEYWORDS else name


def main_rs(expected):
    lines = ["use cuabi_bindgen_probe::*;",
             "fn type_of<T>(_: &T) -> &'static str { std::any::type_name::<T>() }",
             "macro_rules! offset_of {",
             "    ($t:ty, $f:ident) => {{",
             "        let value = std::mem::MaybeUninit::<$t>::uninit();",
             "        let base = value.as_ptr();",
             "        unsafe { std::ptr::addr_of!((*base).$f) as usize - base as usize }",
             "    }};",
             "}",
             "fn main() {"]
    for name, _, fields in expected.structs:
        lines.append('    println!("struct %s size={}", std::mem::size_of::<%s>());' % (name, name))
        for member, _ in fields:
            lines.append('    println!("field %s.%s offset={}", offset_of!(%s, %s));'
                         % (name, member, name, field(member)))
    for name, _, _ in expected.integers:
        lines.append('    println!("constant %s value={} type={}", %s, type_of(&%s));' % (name, name, name))
    for name, _ in expected.strings:
        lines.append('    println!("string %s value={}", std::str::from_utf8(%s).unwrap()'
                     '.trim_end_matches(char::from(0)));' % (name, name))
    for name in expected.pfns:
        lines.append('    { let none: %s = None; assert!(none.is_none()); println!("pfn %s"); }' % (name, name))
    lines.append("}")
    return "\n".join(lines) + "\n"


def run(expected, ctx):
    require("bindgen", "generate the Rust declarations")
    cargo = require("cargo", "compile the bindgen output")
    crate = os.path.join(ctx.work_dir, "crate")
    bindings = run_clean(["bash", os.path.join(ctx.source_dir, "scripts", "bindgen.sh"), ctx.header],
                         "scripts/bindgen.sh")
    write(os.path.join(crate, "Cargo.toml"), CARGO_TOML)
    write(os.path.join(crate, "src", "bindings.rs"), bindings)
    write(os.path.join(crate, "src", "lib.rs"), LIB_RS)
    write(os.path.join(crate, "src", "main.rs"), main_rs(expected))
    problems = ["bindgen wrote no layout test for %s (bindgen_test_layout_%s)" % (name, name)
                for name, _, _ in expected.structs if "fn bindgen_test_layout_%s()" % name not in bindings]
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(ctx.work_dir, "target"), RUSTFLAGS="-D warnings",
               CARGO_TERM_COLOR="never")
    tests = run_clean([cargo, "test", "--offline", "--quiet"], "cargo test (bindgen's layout tests)",
                      cwd=crate, env=env)
    print(tests.strip())
    report = run_clean([cargo, "run", "--offline", "--quiet", "--bin", "probe"], "the Rust probe",
                       cwd=crate, env=env)
    return report, problems
