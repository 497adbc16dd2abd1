//! Errors: one Zig error per cuabi status, and the diagnostics of the calling thread's last failure.
//!
//! Every call that fails returns an `Error` and, in the same call, right after cuabi returned,
//! copies what cuabi said about the failure into the calling thread's `Diagnostics`
//! (`cuabi.lastError()`). Zig threads are OS threads, so "the same thread" is exact: nothing can
//! move the call and the read apart. Because the copy is the package's own, later cuabi calls on
//! the thread -- a `deinit` in an `errdefer`, another successful call -- leave it as it was; only
//! the next failure replaces it.

const std = @import("std");
const c = @import("c.zig");
const Library = @import("Library.zig");

/// One error per cuabi status: `CUABI_ERROR_LAUNCH_BLOCK` is `error.LaunchBlock`, and so on (the
/// status name in CamelCase). `error.Unsupported` is also what a function the loaded library lacks
/// returns. `error.UnknownStatus` is a status newer than this package (the diagnostics keep its
/// number and the library's name for it).
pub const Error = error{
    InvalidArgument,
    InvalidHandle,
    StructSize,
    OutOfHostMemory,
    BufferTooSmall,
    NotFound,
    Unsupported,
    NotReady,
    ContextMismatch,
    Internal,
    Forked,
    Timeout,
    Cancelled,
    DriverNotFound,
    DriverTooOld,
    NoDevice,
    InvalidDevice,
    NvrtcNotFound,
    NvjitlinkNotFound,
    Cuda,
    DeviceOutOfMemory,
    OutOfBounds,
    Compile,
    Nvrtc,
    KernelNotFound,
    InvalidImage,
    CacheUnsafe,
    CacheIo,
    Link,
    LaunchGrid,
    LaunchBlock,
    LaunchKernelThreads,
    LaunchSharedMemory,
    LaunchCooperative,
    LaunchCluster,
    ArgumentCount,
    ArgumentSize,
    LaunchFailed,
    Capture,
    GraphNode,
    GraphUpdate,
    GraphMemory,
    Range,
    UnknownStatus,
};

/// The errors of `Library.open`: the library could not be loaded, is not cuabi, or has another
/// ABI major than this package was translated for. The diagnostics say which file and why.
pub const OpenError = error{ LibraryNotFound, NotCuabi, AbiMismatch };

/// "LaunchKernelThreads" -> "LAUNCH_KERNEL_THREADS": the header's spelling of an error's name.
fn screamingSnake(comptime camel: []const u8) []const u8 {
    comptime {
        @setEvalBranchQuota(10_000);
        var out: []const u8 = "";
        for (camel, 0..) |ch, i| {
            if (std.ascii.isUpper(ch) and i > 0) out = out ++ "_";
            out = out ++ .{std.ascii.toUpper(ch)};
        }
        return out;
    }
}

/// The header's name of the status behind `name` ("CUABI_ERROR_LAUNCH_BLOCK" for "LaunchBlock").
pub fn headerStatusName(comptime name: []const u8) []const u8 {
    return comptime "CUABI_ERROR_" ++ screamingSnake(name);
}

/// Every known status with its error, built from the error set and the translated header.
const known = blk: {
    @setEvalBranchQuota(100_000);
    const names = @typeInfo(Error).error_set.error_names.?;
    var table: [names.len - 1]struct { status: i32, err: Error } = undefined;
    var n = 0;
    for (names) |name| {
        if (std.mem.eql(u8, name, "UnknownStatus")) continue;
        table[n] = .{ .status = @field(c, headerStatusName(name)), .err = @field(Error, name) };
        n += 1;
    }
    break :blk table;
};

/// The error for a failed status; `error.UnknownStatus` for one this package does not know.
pub fn errorFromStatus(status: i32) Error {
    inline for (known) |entry| {
        if (status == entry.status) return entry.err;
    }
    return error.UnknownStatus;
}

/// The status behind an error, or null for `error.UnknownStatus`.
pub fn statusFromError(err: Error) ?i32 {
    inline for (known) |entry| {
        if (err == entry.err) return entry.status;
    }
    return null;
}

/// What cuabi said about a failure, copied on the thread that made the call, right after it.
pub const Diagnostics = struct {
    /// The most message bytes kept; a longer message is cut there (`message_truncated`).
    pub const message_capacity = 8192;

    /// The error the call returned.
    err: anyerror = error.Unexpected,
    /// The cuabi status (`CUABI_ERROR_*`); 0 when the failure came before cuabi was reached
    /// (`Library.open`).
    status: i32 = 0,
    /// The library's name of the status ("CUABI_ERROR_LAUNCH_BLOCK"); "" when `status` is 0.
    status_name: [:0]const u8 = "",
    /// The C function that failed ("cuabi_launch"), or what the package was doing ("dlopen").
    function: []const u8 = "",
    /// The CUresult behind a driver-caused failure, else 0.
    cu_result: i32 = 0,
    /// The nvrtcResult behind an NVRTC-caused failure, else 0.
    nvrtc_result: i32 = 0,
    /// Bytes of the NVRTC log cuabi held for this thread's last compile when the failure was
    /// recorded, its terminating NUL included (0: no log; 1: an empty one). See `compileLog`.
    compile_log_size: usize = 0,
    /// Whether the message was longer than `message_capacity` and was cut.
    message_truncated: bool = false,
    /// The message's bytes in `message_buffer`; read it with `message()`.
    message_len: usize = 0,
    /// Holds the message.
    message_buffer: [message_capacity]u8 = undefined,
    /// The library the failing call went to (for `compileLog`; it must still be open then).
    lib: ?*const Library = null,

    /// What was wrong, with the values involved, ending in "Fix: ...".
    pub fn message(self: *const Diagnostics) []const u8 {
        return self.message_buffer[0..self.message_len];
    }

    /// The NVRTC log of the thread's last compile, read from cuabi now (caller frees): cuabi keeps
    /// it per thread until the thread compiles again, so read it before compiling again on this
    /// thread. Logs can be long, which is why the failure does not copy it. "" when there is none.
    pub fn compileLog(self: *const Diagnostics, allocator: std.mem.Allocator) (Error || std.mem.Allocator.Error)![:0]u8 {
        const lib = self.lib orelse return allocator.allocSentinel(u8, 0, 0);
        return lib.lastCompileLog(allocator);
    }

    /// "cuabi_launch: CUABI_ERROR_LAUNCH_BLOCK: block (1024,2,1) has ... Fix: ..." (use `{f}`).
    pub fn format(self: *const Diagnostics, writer: *std.Io.Writer) std.Io.Writer.Error!void {
        try writer.print("{s}: {s}: {s}", .{ self.function, self.status_name, self.message() });
        if (self.message_truncated) try writer.writeAll(" [message cut]");
    }

    fn setMessage(self: *Diagnostics, text: []const u8) void {
        const kept = @min(text.len, message_capacity);
        @memcpy(self.message_buffer[0..kept], text[0..kept]);
        self.message_len = kept;
        self.message_truncated = kept < text.len;
    }
};

threadlocal var last: Diagnostics = .{};

/// The diagnostics of the calling thread's last failed call through this package. Valid until
/// the next failure on this thread; before any failure, a value with `status` 0 and no message.
pub fn lastError() *const Diagnostics {
    return &last;
}

/// Records cuabi's account of the failure `status` of `function` and returns its error. Called
/// by the package right after the failing call, on the same thread.
pub fn recordFailure(lib: *const Library, function: []const u8, status: i32) Error {
    @branchHint(.cold);
    const err = errorFromStatus(status);
    const d = &last;
    d.* = .{ .err = err, .status = status, .function = function, .lib = lib };
    const api = &lib.dispatch;
    if (api.cuabi_status_name) |name| d.status_name = std.mem.span(name(status));
    if (api.cuabi_last_error_message) |message| d.setMessage(std.mem.span(message()));
    if (api.cuabi_last_cu_result) |cu_result| d.cu_result = cu_result();
    if (api.cuabi_last_nvrtc_result) |nvrtc_result| d.nvrtc_result = nvrtc_result();
    if (api.cuabi_last_compile_log) |compile_log| {
        var size: usize = 0;
        if (compile_log(null, 0, &size) == c.CUABI_SUCCESS) d.compile_log_size = size;
    }
    return err;
}

/// Records a failure the package itself detected (the call never reached cuabi, or reached it
/// with a result the package refuses) with `status`, returns its error. `fix` completes the message.
pub fn recordPackageFailure(lib: ?*const Library, function: []const u8, status: i32, comptime what: []const u8, args: anytype, comptime fix: []const u8) Error {
    @branchHint(.cold);
    const err = errorFromStatus(status);
    recordText(lib, function, err, status, what ++ " Fix: " ++ fix, args);
    if (lib) |l| {
        if (l.dispatch.cuabi_status_name) |name| last.status_name = std.mem.span(name(status));
    }
    return err;
}

/// Records a failure of `Library.open` (no cuabi status: the library is not there to give one).
pub fn recordOpenFailure(err: OpenError, function: []const u8, comptime what: []const u8, args: anytype, comptime fix: []const u8) OpenError {
    @branchHint(.cold);
    recordText(null, function, err, 0, what ++ " Fix: " ++ fix, args);
    return err;
}

fn recordText(lib: ?*const Library, function: []const u8, err: anyerror, status: i32, comptime format: []const u8, args: anytype) void {
    const d = &last;
    d.* = .{ .err = err, .status = status, .function = function, .lib = lib };
    var writer: std.Io.Writer = .fixed(&d.message_buffer);
    writer.print(format, args) catch {
        d.message_truncated = true;
    };
    d.message_len = writer.end;
}

test "every status error maps to its header constant and back" {
    inline for (known) |entry| {
        try std.testing.expectEqual(entry.err, errorFromStatus(entry.status));
        try std.testing.expectEqual(@as(?i32, entry.status), statusFromError(entry.err));
    }
    try std.testing.expectEqual(Error.UnknownStatus, errorFromStatus(9999));
    try std.testing.expectEqual(@as(?i32, null), statusFromError(error.UnknownStatus));
    try std.testing.expectEqualStrings("CUABI_ERROR_LAUNCH_KERNEL_THREADS", headerStatusName("LaunchKernelThreads"));
}

test "a message from cuabi longer than the diagnostics keep is cut, and says so" {
    var d: Diagnostics = .{};
    const long: [Diagnostics.message_capacity + 1]u8 = @splat('m');
    d.setMessage(&long);
    try std.testing.expect(d.message_truncated);
    try std.testing.expectEqualSlices(u8, long[0..Diagnostics.message_capacity], d.message());
    d.setMessage("short");
    try std.testing.expect(!d.message_truncated);
    try std.testing.expectEqualStrings("short", d.message());
}
