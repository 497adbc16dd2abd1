//! Writes src/c.zig for `zig build translate`: translate-C's output for the header, kept to the
//! header's own declarations, under a note that says where it came from and the digest of the
//! header it was made from (which the tests compare with the header in the tree).
//!
//!     stamp_translation HEADER TRANSLATION OUTPUT
//!
//! What is dropped: the declarations translate-C emits for <stddef.h>, <stdint.h> and the
//! compiler's predefined macros (they depend on the machine's C library, and cuabi's declarations
//! use none of them: fixed-width types translate to Zig's own integers), and its comments naming
//! a source line, which move whenever the header's documentation does.

const std = @import("std");
const header_digest = @import("header_digest");

/// Reads the header and translate-C's output, writes the stamped, filtered translation.
pub fn main(init: std.process.Init) !void {
    const args = try init.minimal.args.toSlice(init.arena.allocator());
    if (args.len != 4) {
        std.debug.print("usage: stamp_translation HEADER TRANSLATION OUTPUT\n", .{});
        std.process.exit(2);
    }
    const io = init.io;
    const gpa = init.gpa;
    const cwd = std.Io.Dir.cwd();
    const limit: std.Io.Limit = .limited(16 << 20);
    const header = try cwd.readFileAlloc(io, args[1], gpa, limit);
    defer gpa.free(header);
    const translation = try cwd.readFileAlloc(io, args[2], gpa, limit);
    defer gpa.free(translation);

    var file = try cwd.createFile(io, args[3], .{});
    defer file.close(io);
    var buffer: [4096]u8 = undefined;
    var writer = file.writer(io, &buffer);
    const out = &writer.interface;
    try out.print(
        \\// include/cuabi/cuabi.h as `zig translate-c` translates it, kept to the header's own
        \\// declarations. Written by `zig build translate`: do not edit; after changing the header run
        \\// `zig build translate` (the tests fail until the translation matches the header).
        \\
        \\/// The digest of the header this translation was made from (see header_digest.zig).
        \\pub const cuabi_header_digest = "{s}";
        \\
    , .{header_digest.digest(header)});
    try writeCuabiDeclarations(out, translation);
    try out.flush();
}

/// Writes the top-level declarations of `translation` that belong to the header: those named
/// cuabi_* / PFN_cuabi_* / CUABI_* (and struct_cuabi_*), with the helpers they refer to.
fn writeCuabiDeclarations(out: *std.Io.Writer, translation: []const u8) !void {
    var lines = std.mem.splitScalar(u8, translation, '\n');
    var keep = false;
    while (lines.next()) |line| {
        // A declaration starts at column 0; its body lines are indented or close it.
        const starts_declaration = line.len > 0 and !std.ascii.isWhitespace(line[0]) and line[0] != '}';
        if (starts_declaration) keep = !std.mem.startsWith(u8, line, "//") and belongs(declaredName(line));
        if (keep) try out.print("{s}\n", .{line});
    }
}

/// The name a top-level declaration line declares ("pub const NAME = ...", "pub extern fn NAME(").
fn declaredName(line: []const u8) []const u8 {
    var words = std.mem.tokenizeAny(u8, line, " (=:");
    while (words.next()) |word| {
        if (std.mem.eql(u8, word, "pub") or std.mem.eql(u8, word, "const") or std.mem.eql(u8, word, "extern") or
            std.mem.eql(u8, word, "inline") or std.mem.eql(u8, word, "fn") or std.mem.eql(u8, word, "var")) continue;
        return word;
    }
    return "";
}

fn belongs(name: []const u8) bool {
    const helpers = [_][]const u8{ "__root", "__builtin", "__helpers" };
    for (helpers) |helper| if (std.mem.eql(u8, name, helper)) return true;
    // The macro `zig build translate` defines on the command line is not the header's.
    if (std.mem.eql(u8, name, "CUABI_NO_PROTOTYPES")) return false;
    return std.ascii.findIgnoreCase(name, "cuabi") != null;
}

test "only the header's declarations are kept, with their bodies" {
    const translation =
        \\const __root = @This();
        \\pub const int_fast8_t = i8;
        \\pub const struct_cuabi_x = extern struct {
        \\    a: u32 = 0,
        \\};
        \\pub extern fn cuabi_f(x: u32) i32;
        \\pub inline fn __building_module(x: anytype) @TypeOf(@as(c_int, 0)) {
        \\    _ = &x;
        \\}
        \\pub const CUABI_A = @as(c_int, 1);
        \\pub const CUABI_NO_PROTOTYPES = @as(c_int, 1);
        \\pub const CUABI_INIT = @compileError("unable to translate C expr: unexpected token '{'");
        \\// include/cuabi/cuabi.h:248:9
        \\
    ;
    var buffer: [1024]u8 = undefined;
    var out: std.Io.Writer = .fixed(&buffer);
    try writeCuabiDeclarations(&out, translation);
    try std.testing.expectEqualStrings(
        \\const __root = @This();
        \\pub const struct_cuabi_x = extern struct {
        \\    a: u32 = 0,
        \\};
        \\pub extern fn cuabi_f(x: u32) i32;
        \\pub const CUABI_A = @as(c_int, 1);
        \\pub const CUABI_INIT = @compileError("unable to translate C expr: unexpected token '{'");
        \\
    , out.buffered());
}
