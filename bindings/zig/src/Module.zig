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
