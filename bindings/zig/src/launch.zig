//! Launch configuration and kernel arguments.
//!
//! Arguments are a tuple of Zig values, `.{ a, x, y, n }`, one per kernel parameter in
//! declaration order. The compiler checks each value's type can be a kernel argument (below);
//! cuabi then checks every size against the kernel's real parameter layout at run time, so a
//! `f64` passed for a `float` parameter is `error.ArgumentSize`, not a wrong result. The tuple
//! becomes an argument table on the stack: a launch allocates nothing.

const std = @import("std");
const c = @import("c.zig");
const types = @import("types.zig");
const Stream = @import("Stream.zig");

/// A device address (a CUdeviceptr), as a kernel sees a pointer parameter: take it from
/// `Buffer.devicePtr()`, or from another CUDA library.
pub const DevicePtr = enum(u64) {
    null = 0,
    _,

    /// The address `bytes` further on.
    pub fn offset(self: DevicePtr, bytes: u64) DevicePtr {
        return @fromBackingInt(@backingInt(self) + bytes);
    }

    /// The address as a number.
    pub fn address(self: DevicePtr) u64 {
        return @backingInt(self);
    }
};

/// How to launch a kernel: geometry, shared memory, stream, flags and priority. The defaults are
/// the header's: one block of one thread, no cluster, no dynamic shared memory, no stream (run on
/// the calling thread's per-thread stream and wait), the stream's priority.
pub const LaunchConfig = struct {
    /// Blocks in x, y, z; every dimension at least 1.
    grid: [3]u32 = .{ 1, 1, 1 },
    /// Threads per block in x, y, z; every dimension at least 1.
    block: [3]u32 = .{ 1, 1, 1 },
    /// Blocks per thread block cluster (sm_90+); all zero: no cluster.
    cluster: [3]u32 = .{ 0, 0, 0 },
    /// Dynamic shared memory per block; above 48 KiB cuabi opts the kernel in.
    shared_memory_bytes: u32 = 0,
    /// The stream to enqueue on; null: the calling thread's per-thread stream, waiting for the end.
    stream: ?Stream = null,
    flags: types.LaunchFlags = .{},
    /// This launch's priority instead of the stream's: lower runs first, 0 is the default, clamped
    /// to the device's range as stream priorities are. Setting it sets `flags.priority`; null: the
    /// stream's priority (unless `flags.priority` is set by hand, which means 0).
    priority: ?i32 = null,

    /// The header's struct for this configuration.
    pub inline fn toC(self: LaunchConfig) c.cuabi_launch_config {
        var flags = self.flags;
        if (self.priority != null) flags.priority = true;
        return .{
            .struct_size = @sizeOf(c.cuabi_launch_config),
            .flags = @bitCast(flags),
            .grid = self.grid,
            .block = self.block,
            .cluster = self.cluster,
            .shared_memory_bytes = self.shared_memory_bytes,
            .stream = if (self.stream) |stream| stream.handle else null,
            .priority = self.priority orelse 0,
            .reserved = 0,
        };
    }
};

/// Why a value of type T cannot be a kernel argument, or null when it can: integers and floats
/// of 1, 2, 4 or 8 bytes, bool, enums with such a tag (`DevicePtr` among them), arrays of those,
/// and `extern` or `packed` structs (a kernel may take a struct by value).
pub fn argumentRefusal(comptime T: type) ?[]const u8 {
    return switch (@typeInfo(T)) {
        .int => |int| if (int.bits % 8 == 0 and int.bits <= 64 and std.math.isPowerOfTwo(int.bits)) null else "integers must have 8, 16, 32 or 64 bits",
        .float => |float| if (float.bits <= 64) null else "floats must have 16, 32 or 64 bits",
        .bool => null,
        .@"enum" => |e| argumentRefusal(e.tag_type),
        .array => |array| argumentRefusal(array.child),
        .@"struct" => |s| switch (s.layout) {
            .@"extern", .@"packed" => null,
            .auto => "a struct passed by value needs a defined layout: declare it extern struct",
        },
        .comptime_int, .comptime_float => "a literal has no size: give it the parameter's type, e.g. @as(f32, 2.0) or @as(u32, n)",
        .pointer => "a host pointer cannot be a kernel argument: pass a DevicePtr (Buffer.devicePtr())",
        .optional => "optionals have no C layout: pass the value, or DevicePtr.null for a null device pointer",
        else => "only integers, floats, bools, enums, arrays and extern structs can be kernel arguments",
    };
}

/// Fails compilation, naming the argument and the reason, unless every field of the tuple type
/// `Args` can be a kernel argument.
pub fn checkArguments(comptime Args: type) void {
    const info = @typeInfo(Args);
    if (info != .@"struct" or !info.@"struct".is_tuple)
        @compileError("kernel arguments are a tuple, .{ a, x, y, n }; got " ++ @typeName(Args));
    for (info.@"struct".field_types, 0..) |T, i| {
        if (argumentRefusal(T)) |why|
            @compileError(std.fmt.comptimePrint("kernel argument {d} ({s}): {s}", .{ i, @typeName(T), why }));
    }
}

/// The values of tuple type `Args` as run-time fields: a tuple literal makes comptime-known
/// values comptime fields, which have no address to give cuabi.
pub fn Values(comptime Args: type) type {
    comptime checkArguments(Args);
    return @Tuple(@typeInfo(Args).@"struct".field_types);
}

/// `args` copied into run-time fields (see `Values`).
pub inline fn values(args: anytype) Values(@TypeOf(args)) {
    var out: Values(@TypeOf(args)) = undefined;
    inline for (0..out.len) |i| out[i] = args[i];
    return out;
}

/// The argument table of `args` (from `values`): pointers into it, which must outlive the table.
pub inline fn table(args: anytype) [@typeInfo(@TypeOf(args.*)).@"struct".field_types.len]c.cuabi_kernel_arg {
    const fields = @typeInfo(@TypeOf(args.*)).@"struct".field_types;
    var out: [fields.len]c.cuabi_kernel_arg = undefined;
    inline for (fields, 0..) |T, i| out[i] = .{ .value = @ptrCast(&args[i]), .size = @sizeOf(T) };
    return out;
}

/// The pointer for the C call: null for no arguments.
pub inline fn tablePointer(args: []const c.cuabi_kernel_arg) ?[*]const c.cuabi_kernel_arg {
    return if (args.len == 0) null else args.ptr;
}
