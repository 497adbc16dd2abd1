"""zig translate-c (PyPI ziglang 0.17.1, `python3 -m ziglang`) on the installed header.

Zig 0.17 has no @cImport: the header is translated once with `zig translate-c`, and a generated
Zig program imports the translation and prints @sizeOf / @offsetOf of every struct and field,
every constant's value and type (c_int reported as i32, c_uint as u32, ...), the version string,
each PFN_ type and each prototype -- a PFN_ type is reported as matching only if it is exactly
`?*const` the prototype's function type. The program links the installed libcuabi.so, so every
prototype must also resolve there. Anything translate-c could not translate becomes an
@compileError declaration: every one that belongs to cuabi.h fails the probe, except the
CUABI_*_INIT brace initializers (C only; each struct has an _init() function).

The first translate-C on a machine builds Zig's C translator (minutes; then cached in
~/.cache/zig), which is why this test's ctest TIMEOUT is long.
"""
import os
import re
import sys

import expected as ex
from tool import ProbeFailure, run_clean, unavailable, write

KINDS = (ex.STRUCTS, ex.CONSTANTS, ex.STRINGS, ex.PFNS, ex.FUNCTIONS)
TYPED_CONSTANTS = True

PRELUDE = r'''const std = @import("std");
const c = @import("cuabi.zig");

fn signedness(comptime T: type) []const u8 {
    return if (@typeInfo(T).int.signedness == .signed) "i" else "u";
}

fn bits(comptime T: type) u16 {
    return @typeInfo(T).int.bits;
}

fn pfnMatches(comptime pfn: type, comptime function: type) bool {
    return pfn == ?*const function;
}

pub fn main() void {
    @setEvalBranchQuota(100000);
'''


def probe_zig(expected):
    lines = [PRELUDE]

    def say(text, args=""):
        lines.append('    std.debug.print("%s\\n", .{%s});' % (text, args))

    for name, _, fields in expected.structs:
        lines.append('    if (comptime @hasDecl(c, "%s")) {' % name)
        say("struct %s size={d}" % name, "@sizeOf(c.%s)" % name)
        for member, _ in fields:
            say("field %s.%s offset={d}" % (name, member), '@offsetOf(c.%s, "%s")' % (name, member))
        lines.append("    }")
    for name, _, _ in expected.integers:
        lines.append('    if (comptime @hasDecl(c, "%s"))' % name)
        say("constant %s value={d} type={s}{d}" % name,
            "c.%s, comptime signedness(@TypeOf(c.%s)), comptime bits(@TypeOf(c.%s))" % (name, name, name))
    for name, _ in expected.strings:
        lines.append('    if (comptime @hasDecl(c, "%s"))' % name)
        say("string %s value={s}" % name, "c.%s" % name)
    for name in expected.functions:
        lines.append('    if (comptime @hasDecl(c, "%s") and @typeInfo(@TypeOf(c.%s)) == .@"fn")' % (name, name))
        say("function %s" % name)
    for name in expected.pfns:
        function = name[len("PFN_"):]
        lines.append('    if (comptime @hasDecl(c, "%s")) {' % name)
        lines.append('        if (comptime @hasDecl(c, "%s") and pfnMatches(c.%s, @TypeOf(c.%s))) {'
                     % (function, name, function))
        say("pfn %s" % name)
        lines.append("        } else {")
        say("pfn %s differs from the prototype of %s" % (name, function))
        lines.append("        }")
        lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def untranslated(translation, expected):
    """Declarations of cuabi.h that translate-c turned into @compileError, other than the
    initializers."""
    initializers = set(expected.initializers)
    failed = re.findall(r"^pub const (\w+) = @compileError\((.*)\);$", translation, re.M)
    return ["zig translate-c could not translate %s: %s" % (name, why) for name, why in failed
            if re.match(r"(CUABI_|cuabi_|PFN_cuabi_)", name) and name not in initializers]


def run(expected, ctx):
    zig = [sys.executable, "-m", "ziglang"]
    try:
        run_clean(zig + ["version"], "python3 -m ziglang version")
    except ProbeFailure:
        unavailable("Zig is not installed for %s (PyPI ziglang==0.17.1)" % sys.executable)
    env = dict(os.environ, ZIG_LOCAL_CACHE_DIR=os.path.join(ctx.work_dir, "zig-cache"))
    translation = run_clean(zig + ["translate-c", "-lc", "-I", ctx.include_dir, ctx.header],
                            "zig translate-c", env=env)
    problems = untranslated(translation, expected)
    problems += ["zig translate-c warned: %s" % line.strip() for line in translation.splitlines()
                 if "warning:" in line and "cuabi.h" in line]
    write(os.path.join(ctx.work_dir, "cuabi.zig"), translation)
    write(os.path.join(ctx.work_dir, "probe.zig"), probe_zig(expected))
    binary = os.path.join(ctx.work_dir, "probe")
    run_clean(zig + ["build-exe", "probe.zig", "-lc", "-L", ctx.libdir, "-lcuabi", "-femit-bin=" + binary],
              "zig build-exe (the Zig probe)", cwd=ctx.work_dir, env=env)
    env["LD_LIBRARY_PATH"] = ctx.libdir
    return run_clean([binary], "the Zig probe", quiet_stderr=False, stderr_is_output=True, env=env), problems
