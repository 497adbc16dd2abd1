//! A module: one compiled or loaded image (CUBIN, PTX or fatbin) with its NVRTC log and the
//! lowered names of the name expressions it was compiled with; its kernels (`kernel`) and its
//! `__device__` / `__constant__` variables (`global`) are taken from it. Compiles go through
//! cuabi's kernel cache (memory, then disk); NVRTC runs in a worker process by default. A module
//! keeps its context alive, and its kernels and globals keep it alive. Thread-safe.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const text = @import("text.zig");
const Library = @import("Library.zig");
const Context = @import("Context.zig");
const Kernel = @import("Kernel.zig");
const Buffer = @import("Buffer.zig");

const Module = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library the module came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_module,

/// Compiles `source` with NVRTC for the context's device (or `options.target`) and loads it.
/// `error.Compile` for errors in the source: the message quotes the first one and
/// `cuabi.lastError().compileLog(allocator)` has the whole log.
pub fn compile(context: Context, source: [:0]const u8, options: types.CompileOptions) Error!Module {
    const raw = try checkedOptions(context.lib, "cuabi_module_compile", options);
    var handle: ?*c.cuabi_module = null;
    try context.lib.call("cuabi_module_compile", .{ context.handle, source.ptr, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// Compiles `source` for `options.target` (required) without a context, driver or GPU. The
/// module is not loaded: read its image, log and lowered names; `kernel` refuses it.
pub fn compileOffline(lib: *const Library, source: [:0]const u8, options: types.CompileOptions) Error!Module {
    const raw = try checkedOptions(lib, "cuabi_module_compile_offline", options);
    var handle: ?*c.cuabi_module = null;
    try lib.call("cuabi_module_compile_offline", .{ source.ptr, &raw, &handle });
    return .{ .lib = lib, .handle = handle.? };
}

fn checkedOptions(lib: *const Library, comptime function: []const u8, options: types.CompileOptions) Error!c.cuabi_compile_options {
    if (options.header_names.len != options.header_sources.len)
        return errors.recordPackageFailure(lib, function, c.CUABI_ERROR_INVALID_ARGUMENT, "{d} header names but {d} header sources.", .{ options.header_names.len, options.header_sources.len }, "give one source per header name.");
    return options.toC();
}

/// Loads a PTX, CUBIN or fatbin image into `context` (checked before the driver sees it, and
/// copied: `bytes` may be freed on return). `error.InvalidImage` for anything else.
pub fn loadImage(context: Context, bytes: []const u8) Error!Module {
    var handle: ?*c.cuabi_module = null;
    try context.lib.call("cuabi_module_load_image", .{ context.handle, bytes.ptr, bytes.len, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// The most inputs one link takes (`CUABI_LINK_MAX_INPUTS`).
pub const max_link_inputs = c.CUABI_LINK_MAX_INPUTS;

/// One input of a link (since 1.2): a module of this library (its LTO-IR, CUBIN or PTX), the
/// caller's bytes, or a file, each of a `LinkInputKind` (a module's image says its own).
pub const LinkInput = union(enum) {
    module: Module,
    bytes: struct { kind: types.LinkInputKind, data: []const u8, name: ?[*:0]const u8 = null },
    file: struct { kind: types.LinkInputKind, path: [*:0]const u8, name: ?[*:0]const u8 = null },

    fn toC(self: LinkInput) c.cuabi_link_input {
        var out = std.mem.zeroes(c.cuabi_link_input);
        switch (self) {
            .module => |m| out.module = m.handle,
            .bytes => |b| {
                out.kind = @intFromEnum(b.kind);
                out.data = b.data.ptr;
                out.size = b.data.len;
                out.name = b.name;
            },
            .file => |f| {
                out.kind = @intFromEnum(f.kind);
                out.path = f.path;
                out.name = f.name;
            },
        }
        return out;
    }
};

/// Links `inputs` with nvJitLink for the context's device (or `options.target`) and loads the
/// result (since 1.2); a repeated link is a kernel-cache hit, served without NVRTC or nvJitLink.
/// `error.Link` when nvJitLink refuses the inputs (`cuabi.lastError().compileLog(allocator)` has
/// its log); `error.InvalidArgument` / `error.InvalidImage` for a malformed input, checked before
/// nvJitLink sees it; `error.NvjitlinkNotFound` when the cache misses and nvJitLink cannot be
/// loaded. `allocator` holds the C table of inputs for the call.
pub fn link(context: Context, allocator: Allocator, inputs: []const LinkInput, options: types.LinkOptions) (Error || Allocator.Error)!Module {
    const table = try linkTable(allocator, inputs);
    defer allocator.free(table);
    const raw = options.toC();
    var handle: ?*c.cuabi_module = null;
    try context.lib.call("cuabi_module_link", .{ context.handle, table.ptr, inputs.len, &raw, &handle });
    return .{ .lib = context.lib, .handle = handle.? };
}

/// As `link` for `options.target` (required), without a context, driver or GPU. The module is
/// not loaded: read its image, log and `kernelNames`.
pub fn linkOffline(lib: *const Library, allocator: Allocator, inputs: []const LinkInput, options: types.LinkOptions) (Error || Allocator.Error)!Module {
    const table = try linkTable(allocator, inputs);
    defer allocator.free(table);
    const raw = options.toC();
    var handle: ?*c.cuabi_module = null;
    try lib.call("cuabi_module_link_offline", .{ table.ptr, inputs.len, &raw, &handle });
    return .{ .lib = lib, .handle = handle.? };
}

/// The C table of `inputs`, with one spare entry so that an empty list still has an address.
fn linkTable(allocator: Allocator, inputs: []const LinkInput) Allocator.Error![]c.cuabi_link_input {
    const table = try allocator.alloc(c.cuabi_link_input, inputs.len + 1);
    for (inputs, 0..) |input, i| table[i] = input.toC();
    table[inputs.len] = std.mem.zeroes(c.cuabi_link_input);
    return table;
}

/// The names of the module's kernels, one per line, read from its CUBIN without a GPU (since
/// 1.2; caller frees). `error.Unsupported` for PTX, fatbin and LTO-IR modules.
pub fn kernelNames(self: Module, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_module_get_kernel_names", .{self.handle}, allocator);
}

/// Releases the module; its kernels stay usable until they are released. Harmless to repeat.
pub fn deinit(self: Module) void {
    if (self.lib.dispatch.cuabi_module_destroy) |destroy| destroy(self.handle);
}

/// Image kind and size, target, origin (compiled, memory or disk cache, image), cache key.
pub fn info(self: Module) Error!types.ModuleInfo {
    var raw = types.outputStruct(c.cuabi_module_info);
    try self.lib.call("cuabi_module_get_info", .{ self.handle, &raw });
    return .fromC(raw);
}

/// The image (caller frees): the CUBIN, the PTX with its terminating NUL, or the fatbin --
/// what `loadImage` takes back.
pub fn image(self: Module, allocator: Allocator) (Error || Allocator.Error)![]u8 {
    return text.readBytes(self.lib, "cuabi_module_get_image", .{self.handle}, allocator);
}

/// The NVRTC log of the compile that made the module ("" for a clean compile; caller frees).
pub fn log(self: Module, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_module_get_log", .{self.handle}, allocator);
}

/// The mangled name NVRTC lowered name expression `expression` to (caller frees).
/// `error.KernelNotFound` for an expression the module was not compiled with.
pub fn loweredName(self: Module, allocator: Allocator, expression: [:0]const u8) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_module_get_lowered_name", .{ self.handle, expression.ptr }, allocator);
}

/// The kernel called `name` (a symbol) or compiled as name expression `name` ("scale<float>"),
/// found without NVRTC, also on a cache hit. `error.KernelNotFound` lists what the module has.
pub fn kernel(self: Module, name: [:0]const u8) Error!Kernel {
    var handle: ?*c.cuabi_kernel = null;
    try self.lib.call("cuabi_module_get_kernel", .{ self.handle, name.ptr, &handle });
    return .{ .lib = self.lib, .handle = handle.? };
}

/// The `__device__` or `__constant__` variable called `name`, or compiled as name expression
/// `name` ("table<float>"), as a buffer covering exactly its bytes: read and write it with the
/// `Buffer` calls (bounded by the variable's size; on a stream, ordered with that stream's
/// kernels; `__constant__` memory written so is seen by later launches), or pass its `devicePtr`
/// to a kernel (`__device__` variables). The buffer frees nothing on `deinit` and keeps the module
/// loaded while it lives; each call returns a new handle to release. `error.NotFound` lists the
/// name expressions the module knows; `error.Unsupported` for a module compiled offline.
pub fn global(self: Module, name: [:0]const u8) Error!Buffer {
    var handle: ?*c.cuabi_buffer = null;
    try self.lib.call("cuabi_module_get_global", .{ self.handle, name.ptr, &handle });
    return .{ .lib = self.lib, .handle = handle.? };
}
