//! A loaded libcuabi.so.1 and its dispatch table: the root of every other cuabi object.
//!
//! `open` loads the library with `std.DynLib` (the program links libc, so this is the system's
//! dlopen), resolves the one symbol `cuabi_get_proc_address`, fills the dispatch table through
//! it and checks the ABI major. Everything made from a `Library` keeps a pointer to it, so the
//! `Library` must stay where it is (not be moved or copied) and stay open while they live.
//! Thread-safe: the table never changes after `open`.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const table = @import("dispatch.zig");
const types = @import("types.zig");
const text = @import("text.zig");
const Context = @import("Context.zig");
const Module = @import("Module.zig");

const Library = @This();

const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library's file name on Linux: the SONAME, whose number is the ABI major.
pub const default_name = std.fmt.comptimePrint("libcuabi.so.{d}", .{c.CUABI_ABI_VERSION});

/// Where `open` looks for the library.
pub const OpenOptions = struct {
    /// A path or file name for dlopen. Null: `$CUABI_LIBRARY` when set and not empty, else
    /// `libcuabi.so.1` through the library search path.
    path: ?[:0]const u8 = null,
};

/// The function pointers, one per header function (null where the library lacks one). For calls
/// this package does not wrap; prefer the wrappers, which turn statuses into errors.
dispatch: table.Dispatch,
/// The loaded shared object.
dynlib: std.DynLib,

/// Loads the library, fills the dispatch table and checks that its ABI major is the one this
/// package was translated for. On failure `cuabi.lastError()` says which file and why.
pub fn open(options: OpenOptions) errors.OpenError!Library {
    const path: [:0]const u8 = options.path orelse fromEnvironment() orelse default_name;
    var dynlib = std.DynLib.openZ(path) catch {
        const reason: []const u8 = if (std.c.dlerror()) |message| std.mem.span(message) else "unknown reason";
        return errors.recordOpenFailure(error.LibraryNotFound, "dlopen", "cannot load '{s}': {s}.", .{ path, reason }, "install libcuabi.so.1 where the dynamic loader finds it, or set CUABI_LIBRARY to its path.");
    };
    errdefer dynlib.close();
    const get_proc_address = dynlib.lookup(std.meta.Child(c.PFN_cuabi_get_proc_address), "cuabi_get_proc_address") orelse
        return errors.recordOpenFailure(error.NotCuabi, "dlsym", "'{s}' has no symbol cuabi_get_proc_address: it is not libcuabi.", .{path}, "point CUABI_LIBRARY (or the path given) at libcuabi.so.1.");
    const library: Library = .{ .dispatch = table.load(get_proc_address), .dynlib = dynlib };
    const abi = library.abiVersion();
    if (abi != c.CUABI_ABI_VERSION)
        return errors.recordOpenFailure(error.AbiMismatch, "cuabi_abi_version", "'{s}' has ABI major {d}; this package is for ABI major {d}.", .{ path, abi, c.CUABI_ABI_VERSION }, "load a libcuabi.so.1 of ABI major 1, or use the cuabi Zig package of that major.");
    return library;
}

fn fromEnvironment() ?[:0]const u8 {
    const value = std.c.getenv("CUABI_LIBRARY") orelse return null;
    const path = std.mem.span(value);
    return if (path.len == 0) null else path;
}

/// Unloads the library. Every object made from it must be gone first.
pub fn close(self: *Library) void {
    self.dynlib.close();
    self.* = undefined;
}

/// The entry for `name` from the dispatch table, or `error.Unsupported` (with diagnostics naming
/// the function) when the loaded library lacks it.
pub inline fn get(self: *const Library, comptime name: []const u8) Error!std.meta.Child(@FieldType(table.Dispatch, name)) {
    if (@field(self.dispatch, name)) |function| return function;
    return self.missing(name);
}

fn missing(self: *const Library, name: []const u8) Error {
    @branchHint(.cold);
    return errors.recordPackageFailure(self, name, c.CUABI_ERROR_UNSUPPORTED, "the loaded libcuabi (version {f}) has no function {s}.", .{ self.version(), name }, "load a newer libcuabi.so.1 (CUABI_LIBRARY or the library search path).");
}

/// Calls the C function `name` with `args` and turns a failed status into its error, recording
/// the diagnostics on this thread first.
pub inline fn call(self: *const Library, comptime name: []const u8, args: anytype) Error!void {
    const status = @call(.auto, try self.get(name), args);
    if (status != c.CUABI_SUCCESS) return errors.recordFailure(self, name, status);
}

/// Calls query function `name`, which returns CUABI_SUCCESS when the work it asks about is done
/// and CUABI_ERROR_NOT_READY (not a failure) while some still runs.
pub inline fn callDone(self: *const Library, comptime name: []const u8, args: anytype) Error!bool {
    const status = @call(.auto, try self.get(name), args);
    if (status == c.CUABI_ERROR_NOT_READY) return false;
    if (status != c.CUABI_SUCCESS) return errors.recordFailure(self, name, status);
    return true;
}

// ---- versions and statuses ----------------------------------------------------------------

/// The loaded library's version number: 10000 * major + 100 * minor + patch.
pub fn versionNumber(self: *const Library) u32 {
    const function = self.dispatch.cuabi_version_number orelse return 0;
    return function();
}

/// The loaded library's version.
pub fn version(self: *const Library) std.SemanticVersion {
    const number = self.versionNumber();
    return .{ .major = number / 10000, .minor = number / 100 % 100, .patch = number % 100 };
}

/// The loaded library's ABI major (the SONAME's number).
pub fn abiVersion(self: *const Library) u32 {
    const function = self.dispatch.cuabi_abi_version orelse return 0;
    return function();
}

/// The library's name of a status ("CUABI_ERROR_INVALID_HANDLE", "CUABI_UNKNOWN_STATUS").
/// Static: never freed.
pub fn statusName(self: *const Library, status: i32) [:0]const u8 {
    const function = self.dispatch.cuabi_status_name orelse return "CUABI_UNKNOWN_STATUS";
    return std.mem.span(function(status));
}

/// The NVRTC log of the calling thread's last compile, failed or not (caller frees).
pub fn lastCompileLog(self: *const Library, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self, "cuabi_last_compile_log", .{}, allocator);
}

/// The `CUABI_*` environment variables whose values cuabi cannot use, one line each naming the
/// variable, its value, what it accepts and what is used instead; "" when every setting is
/// usable (caller frees; iterate with `std.mem.tokenizeScalar(u8, text, '\n')`). Each such value
/// also fails the first call it affects, once, with `error.InvalidArgument` -- except the kernel
/// cache's settings and `CUABI_NVTX`, which fail no call.
pub fn environmentProblems(self: *const Library, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self, "cuabi_environment_get_problems", .{}, allocator);
}

// ---- driver and devices -------------------------------------------------------------------

/// The CUDA driver's version (13000 for 13.0); `error.DriverNotFound` without a driver.
pub fn driverVersion(self: *const Library) Error!i32 {
    var out: i32 = 0;
    try self.call("cuabi_driver_get_version", .{&out});
    return out;
}

/// The number of CUDA devices; `error.NoDevice` when the driver sees none.
pub fn deviceCount(self: *const Library) Error!i32 {
    var out: i32 = 0;
    try self.call("cuabi_device_get_count", .{&out});
    return out;
}

/// Facts and launch limits of device `ordinal`, without a context.
pub fn deviceInfo(self: *const Library, ordinal: i32) Error!types.DeviceInfo {
    var info = types.outputStruct(types.DeviceInfo);
    try self.call("cuabi_device_get_info", .{ ordinal, &info });
    return info;
}

/// The value of any CUdevice_attribute of device `ordinal`, without a context: the escape hatch
/// for facts `DeviceInfo` lacks (`@fromBackingInt(n)` for an attribute `DeviceAttribute` does not
/// name). `error.InvalidDevice` for an ordinal outside [0, count), `error.InvalidArgument` for an
/// attribute this driver does not know.
pub fn deviceAttribute(self: *const Library, ordinal: i32, attribute: types.DeviceAttribute) Error!i32 {
    var out: i32 = 0;
    try self.call("cuabi_device_get_attribute", .{ ordinal, @backingInt(attribute), &out });
    return out;
}

// ---- objects made from the library --------------------------------------------------------

/// Creates a context on a device (see `Context`).
pub fn createContext(self: *const Library, options: types.ContextOptions) Error!Context {
    return Context.create(self, options);
}

/// Compiles `source` for `options.target` (required) without a context or GPU: an image to read,
/// not to launch (see `Module`).
pub fn compileOffline(self: *const Library, source: [:0]const u8, options: types.CompileOptions) Error!Module {
    return Module.compileOffline(self, source, options);
}

/// The NVRTC queries (version, architectures, path, include directories).
pub fn nvrtc(self: *const Library) @import("Nvrtc.zig") {
    return .{ .lib = self };
}

/// The nvJitLink queries (version, path).
pub fn nvJitLink(self: *const Library) @import("NvJitLink.zig") {
    return .{ .lib = self };
}

/// The kernel cache: statistics, directory, prune, clear, verify, the driver's JIT cache.
pub fn cache(self: *const Library) @import("Cache.zig") {
    return .{ .lib = self };
}

/// The process-wide graph cache's capacity and statistics (lookups and inserts are per context).
pub fn graphCache(self: *const Library) @import("GraphCache.zig") {
    return .{ .lib = self };
}

/// Profiler ranges: push/pop, start/end across threads, and the catalog of cuabi's own.
pub fn ranges(self: *const Library) @import("ranges.zig").Ranges {
    return .{ .lib = self };
}
