//! The package against the header: a header change the Zig layer does not follow fails here.
//!
//! - the committed translation (src/c.zig) was made from this header;
//! - its structs have the sizes, offsets and alignments, and its constants the values and
//!   signedness, that the C compiler gives them (abi/layout.golden);
//! - the dispatch table (made from the translation's PFN_ types) has exactly the functions of the
//!   ABI model;
//! - every status has its error, and every other constant its enumeration or flag field, of the
//!   kind the header's conventions give it (plain decimals int32, u-suffixed unsigned).

const std = @import("std");
const reference = @import("cuabi_reference");
const cuabi = @import("../src/root.zig");
const header_digest = @import("header_digest");
const types = @import("../src/types.zig");
const errors = @import("../src/errors.zig");
const c = cuabi.c;

const testing = std.testing;

test "the committed translation was made from this header" {
    const digest = header_digest.digest(reference.header);
    if (!std.mem.eql(u8, &digest, c.cuabi_header_digest)) {
        std.debug.print("include/cuabi/cuabi.h changed since src/c.zig was translated from it. " ++
            "Fix: run `zig build translate` in bindings/zig and commit src/c.zig.\n", .{});
        return error.StaleTranslation;
    }
}

/// The names of the functions of the ABI model (abi/cuabi_model.json, read from the header by
/// clang), in the header's order.
fn modelFunctions(allocator: std.mem.Allocator) ![]const []const u8 {
    const Model = struct { functions: []const struct { name: []const u8 } };
    const model = try std.json.parseFromSliceLeaky(Model, allocator, reference.model, .{ .ignore_unknown_fields = true });
    const names = try allocator.alloc([]const u8, model.functions.len);
    for (model.functions, names) |function, *name| name.* = function.name;
    return names;
}

test "the dispatch table has one entry per function of the model, in its order" {
    var arena: std.heap.ArenaAllocator = .init(testing.allocator);
    defer arena.deinit();
    const functions = try modelFunctions(arena.allocator());
    try testing.expect(functions.len >= 118);
    try testing.expectEqual(functions.len, cuabi.dispatch.function_names.len);
    for (functions, cuabi.dispatch.function_names) |function, entry| {
        try testing.expectEqualStrings(function, entry);
    }
    try testing.expectEqual(functions.len, @typeInfo(cuabi.dispatch.Dispatch).@"struct".field_names.len);
}

test "comments and spacing do not change the digest; declarations do" {
    const a = header_digest.digest("#define A 1 /* one */\ntypedef int x;\n");
    const b = header_digest.digest("// a comment\n#define  A 1\n\n/* two\n lines */ typedef int x;");
    const changed = header_digest.digest("#define A 2\ntypedef int x;\n");
    const joined = header_digest.digest("#define A 1 typedef int x;\n");
    const in_string = header_digest.digest("#define S \"/* not a comment */\"\n");
    const in_string_other = header_digest.digest("#define S \"/* not  a comment */\"\n");
    try testing.expectEqualStrings(&a, &b);
    try testing.expect(!std.mem.eql(u8, &a, &changed));
    try testing.expect(!std.mem.eql(u8, &a, &joined));
    try testing.expect(!std.mem.eql(u8, &in_string, &in_string_other));
}

// ---- abi/layout.golden ----------------------------------------------------------------------

/// One struct of the translation, as the golden file describes it.
const StructLayout = struct { name: []const u8, size: usize, alignment: usize, fields: []const FieldLayout };
const FieldLayout = struct { name: []const u8, offset: usize, size: usize, alignment: usize };

/// Every `cuabi_*` struct of the translation with its layout, as the Zig compiler lays it out.
const translated_structs: []const StructLayout = blk: {
    @setEvalBranchQuota(200_000);
    var out: []const StructLayout = &.{};
    for (@typeInfo(c).@"struct".decl_names) |decl| {
        // Only types: the header's functions are extern declarations nothing may reference (the
        // library is loaded at run time, never linked).
        if (!std.mem.startsWith(u8, decl, "cuabi_") or @TypeOf(@field(c, decl)) != type) continue;
        const value = @field(c, decl);
        if (@typeInfo(value) != .@"struct") continue;
        const info = @typeInfo(value).@"struct";
        var fields: []const FieldLayout = &.{};
        for (info.field_names, info.field_types) |field, T| {
            fields = fields ++ .{FieldLayout{ .name = field, .offset = @offsetOf(value, field), .size = @sizeOf(T), .alignment = @alignOf(T) }};
        }
        out = out ++ .{StructLayout{ .name = decl, .size = @sizeOf(value), .alignment = @alignOf(value), .fields = fields }};
    }
    break :blk out;
};

fn findStruct(name: []const u8) ?StructLayout {
    for (translated_structs) |s| if (std.mem.eql(u8, s.name, name)) return s;
    return null;
}

/// `key=value` from the words of a golden line.
fn attribute(line: []const u8, key: []const u8) ![]const u8 {
    var words = std.mem.tokenizeScalar(u8, line, ' ');
    while (words.next()) |word| {
        if (std.mem.startsWith(u8, word, key) and word.len > key.len and word[key.len] == '=') return word[key.len + 1 ..];
    }
    return error.MissingAttribute;
}

fn number(line: []const u8, key: []const u8) !usize {
    return std.fmt.parseInt(usize, try attribute(line, key), 10);
}

test "the translated structs have the C compiler's layout" {
    var lines = std.mem.splitScalar(u8, reference.layout, '\n');
    var structs_seen: usize = 0;
    var fields_seen: usize = 0;
    while (lines.next()) |line| {
        var words = std.mem.tokenizeScalar(u8, line, ' ');
        const kind = words.next() orelse continue;
        const name = words.next() orelse continue;
        if (std.mem.eql(u8, kind, "struct")) {
            const s = findStruct(name) orelse return failLayout("struct {s} is not in the translation", .{name});
            if (s.size != try number(line, "size") or s.alignment != try number(line, "align"))
                return failLayout("{s}: size {d} align {d} in Zig; golden: {s}", .{ name, s.size, s.alignment, line });
            structs_seen += 1;
        } else if (std.mem.eql(u8, kind, "field")) {
            const dot = std.mem.findScalar(u8, name, '.') orelse return error.UnparsedGolden;
            const s = findStruct(name[0..dot]) orelse return failLayout("struct {s} is not in the translation", .{name[0..dot]});
            const field = for (s.fields) |f| {
                if (std.mem.eql(u8, f.name, name[dot + 1 ..])) break f;
            } else return failLayout("field {s} is not in the translation", .{name});
            if (field.offset != try number(line, "offset") or field.size != try number(line, "size") or field.alignment != try number(line, "align"))
                return failLayout("{s}: offset {d} size {d} align {d} in Zig; golden: {s}", .{ name, field.offset, field.size, field.alignment, line });
            fields_seen += 1;
        }
    }
    var fields_translated: usize = 0;
    for (translated_structs) |s| {
        fields_translated += s.fields.len;
        if (!inGolden("struct", s.name)) return failLayout("struct {s} is in the translation but not in abi/layout.golden", .{s.name});
    }
    try testing.expectEqual(translated_structs.len, structs_seen);
    try testing.expectEqual(fields_translated, fields_seen);
}

/// Whether abi/layout.golden has a line "<kind> <name> ...".
fn inGolden(kind: []const u8, name: []const u8) bool {
    var lines = std.mem.splitScalar(u8, reference.layout, '\n');
    while (lines.next()) |line| {
        var words = std.mem.tokenizeScalar(u8, line, ' ');
        if (std.mem.eql(u8, words.next() orelse continue, kind) and std.mem.eql(u8, words.next() orelse continue, name)) return true;
    }
    return false;
}

fn failLayout(comptime format: []const u8, args: anytype) error{LayoutMismatch} {
    std.debug.print(format ++ ". Fix: run `zig build translate` in bindings/zig (and scripts/abi-baseline.sh if the header changed on purpose).\n", args);
    return error.LayoutMismatch;
}

/// Every integer `CUABI_*` constant of the translation, with its value and signedness. (The
/// `CUABI_*_INIT` initializer macros have no Zig translation: the package fills structs itself.)
const TranslatedConstant = struct { name: []const u8, value: i128, signed: bool };
const translated_constants: []const TranslatedConstant = blk: {
    @setEvalBranchQuota(200_000);
    var out: []const TranslatedConstant = &.{};
    for (@typeInfo(c).@"struct".decl_names) |decl| {
        if (!std.mem.startsWith(u8, decl, "CUABI_") or std.mem.endsWith(u8, decl, "_INIT")) continue;
        const T = @TypeOf(@field(c, decl));
        if (@typeInfo(T) != .int) continue;
        out = out ++ .{TranslatedConstant{ .name = decl, .value = @field(c, decl), .signed = @typeInfo(T).int.signedness == .signed }};
    }
    break :blk out;
};

test "the translated constants have the header's values, int32 or unsigned as written" {
    var lines = std.mem.splitScalar(u8, reference.layout, '\n');
    var seen: usize = 0;
    while (lines.next()) |line| {
        var words = std.mem.tokenizeScalar(u8, line, ' ');
        if (!std.mem.eql(u8, words.next() orelse continue, "constant")) continue;
        const name = words.next() orelse return error.UnparsedGolden;
        const value = try attribute(line, "value");
        if (value[0] == '"') {
            try testing.expectEqualStrings(value[1 .. value.len - 1], c.CUABI_VERSION_STRING);
            continue;
        }
        const constant = for (translated_constants) |k| {
            if (std.mem.eql(u8, k.name, name)) break k;
        } else return failLayout("constant {s} is not in the translation", .{name});
        const signed = std.mem.find(u8, line, " signed") != null;
        if (constant.value != try std.fmt.parseInt(i128, value, 10) or constant.signed != signed or try number(line, "size") != 4)
            return failLayout("{s} = {d} ({s}) in Zig; golden: {s}", .{ name, constant.value, if (constant.signed) "signed" else "unsigned", line });
        seen += 1;
    }
    for (translated_constants) |k| {
        if (!inGolden("constant", k.name)) return failLayout("{s} is in the translation but not in abi/layout.golden", .{k.name});
    }
    try testing.expectEqual(translated_constants.len, seen);
}

// ---- the Zig layer's types against the constants ----------------------------------------------

/// Constants that belong to no enumeration or flag set.
const scalars = [_][]const u8{
    "CUABI_VERSION_MAJOR",          "CUABI_VERSION_MINOR",       "CUABI_VERSION_PATCH",              "CUABI_VERSION_NUMBER",
    "CUABI_ABI_VERSION",            "CUABI_STRUCT_SIZE_MAX",     "CUABI_GRAPH_PARAM_COUNT_UNKNOWN",  "CUABI_SUCCESS",
    "CUABI_LAUNCH_BATCH_MAX_ITEMS", "CUABI_TENSOR_MAP_MAX_RANK", "CUABI_COMPILE_BATCH_MAX_REQUESTS", "CUABI_LINK_MAX_INPUTS",
};

/// The enumeration or flag set whose prefix is the longest one `name` starts with.
fn owner(name: []const u8) ?[]const u8 {
    var best: ?[]const u8 = null;
    inline for (types.enumerations ++ types.flag_sets) |T| {
        if (std.mem.startsWith(u8, name, T.header_prefix) and (best == null or T.header_prefix.len > best.?.len)) best = T.header_prefix;
    }
    if (std.mem.startsWith(u8, name, "CUABI_ERROR_")) return "CUABI_ERROR_";
    return best;
}

test "every header constant has its place in the Zig layer" {
    for (translated_constants) |constant| {
        const is_scalar = for (scalars) |s| {
            if (std.mem.eql(u8, s, constant.name)) break true;
        } else false;
        if (is_scalar) continue;
        const prefix = owner(constant.name) orelse {
            std.debug.print("{s} belongs to no enumeration, flag set or status. Fix: give it a family in the header and run scripts/regenerate.sh (statuses: add the error to src/errors.zig).\n", .{constant.name});
            return error.UnownedConstant;
        };
        var found = false;
        if (std.mem.eql(u8, prefix, "CUABI_ERROR_")) {
            found = constant.signed and errors.errorFromStatus(@intCast(constant.value)) != error.UnknownStatus;
        }
        inline for (types.enumerations) |T| {
            if (std.mem.eql(u8, prefix, T.header_prefix)) found = constant.signed and hasEnumField(T, constant.name, constant.value);
        }
        inline for (types.flag_sets) |T| {
            if (std.mem.eql(u8, prefix, T.header_prefix)) found = !constant.signed and hasFlag(T, constant.name, constant.value);
        }
        if (!found) {
            std.debug.print("{s} = {d} ({s}) has no matching field under {s} in the Zig layer. " ++
                "Fix: run scripts/regenerate.sh, which regenerates src/types.zig from the model (enumerations are int32, flags unsigned).\n", .{ constant.name, constant.value, if (constant.signed) "int32" else "unsigned", prefix });
            return error.UnmatchedConstant;
        }
    }
}

fn hasEnumField(comptime T: type, name: []const u8, value: i128) bool {
    inline for (@typeInfo(T).@"enum".field_names, @typeInfo(T).@"enum".field_values) |field, field_value| {
        if (std.mem.eql(u8, types.headerName(T, field), name)) return field_value == value;
    }
    return false;
}

fn hasFlag(comptime T: type, name: []const u8, value: i128) bool {
    if (std.mem.eql(u8, name[T.header_prefix.len..], "DEFAULT")) return value == 0;
    inline for (@typeInfo(T).@"struct".field_names, @typeInfo(T).@"struct".field_types, 0..) |field, F, bit| {
        if (F == bool and std.mem.eql(u8, types.headerName(T, field), name)) return value == @as(i128, 1) << bit;
    }
    return false;
}

test "every enumeration value and flag of the Zig layer is in the header" {
    inline for (types.enumerations) |T| {
        inline for (@typeInfo(T).@"enum".field_names, @typeInfo(T).@"enum".field_values) |field, value| {
            const constant = @field(c, types.headerName(T, field));
            try expectInt(@TypeOf(constant), .signed);
            try testing.expectEqual(value, constant);
        }
    }
    inline for (types.flag_sets) |T| {
        try testing.expectEqual(0, @field(c, T.header_prefix ++ "DEFAULT"));
        inline for (@typeInfo(T).@"struct".field_names, @typeInfo(T).@"struct".field_types, 0..) |field, F, bit| {
            if (F != bool) continue;
            const constant = @field(c, types.headerName(T, field));
            try expectInt(@TypeOf(constant), .unsigned);
            try testing.expectEqual(@as(u32, 1) << bit, constant);
        }
    }
}

test "every status error has its header constant" {
    inline for (@typeInfo(cuabi.Error).error_set.error_names.?) |name| {
        if (comptime std.mem.eql(u8, name, "UnknownStatus")) continue;
        const status = @field(c, errors.headerStatusName(name));
        try expectInt(@TypeOf(status), .signed);
        try testing.expectEqual(@field(cuabi.Error, name), cuabi.errorFromStatus(status));
    }
}

/// A 32-bit integer type of the given signedness (the header's int32_t / uint32_t constants).
fn expectInt(comptime T: type, comptime signedness: std.lang.Signedness) !void {
    try testing.expectEqual(std.lang.Type.Int{ .signedness = signedness, .bits = 32 }, @typeInfo(T).int);
}
