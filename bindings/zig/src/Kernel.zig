//! A kernel: one __global__ function of a loaded module, taken with `Module.kernel`. It keeps its
//! module alive. Thread-safe: one kernel may be launched from several threads at once.
//!
//! `launch(config, .{ a, x, y, n })` passes the tuple as cuabi's argument table, built on the
//! stack; `launchPacked` passes one buffer laid out at the kernel's parameter offsets (`pack`
//! builds it). Either way cuabi checks geometry, shared memory and every argument against the
//! kernel before the driver sees the launch.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const launch_ = @import("launch.zig");
const Library = @import("Library.zig");

const Kernel = @This();
const Error = errors.Error;

/// The library the kernel came from.
lib: *const Library,
/// The C handle, for calls through `lib.dispatch`.
handle: *c.cuabi_kernel,

/// Where one parameter lies in the kernel's parameter buffer.
pub const ParamInfo = struct {
    /// Byte offset.
    offset: usize,
    /// Bytes.
    size: usize,
};

/// The block size with the highest occupancy, and the smallest grid that fills the device with it.
pub const BlockSuggestion = struct {
    /// Threads per block.
    block_threads: u32,
    /// Blocks.
    min_grid_blocks: u32,
};

/// Releases the kernel. Harmless to repeat.
pub fn deinit(self: Kernel) void {
    if (self.lib.dispatch.cuabi_kernel_destroy) |destroy| destroy(self.handle);
}

/// Launches the kernel with the tuple `args`, one value per parameter in declaration order
/// (checked at compile time for types that can be kernel arguments, then by cuabi against the
/// kernel's real parameter layout). With no stream in `config`, or `flags.synchronize`, it waits
/// for the kernel to finish. Allocates nothing.
pub fn launch(self: Kernel, config: launch_.LaunchConfig, args: anytype) Error!void {
    const values = launch_.values(args);
    const table = launch_.table(&values);
    const raw = config.toC();
    const function = try self.lib.get("cuabi_launch");
    const status = function(self.handle, &raw, launch_.tablePointer(&table), table.len);
    if (status != c.CUABI_SUCCESS) return errors.recordFailure(self.lib, "cuabi_launch", status);
}

/// Launches the kernel with every argument in `packed_args`, each at the offset `paramInfo`
/// reports, ending where the last parameter ends (see `pack`).
pub fn launchPacked(self: Kernel, config: launch_.LaunchConfig, packed_args: []const u8) Error!void {
    const raw = config.toC();
    return self.lib.call("cuabi_launch_packed", .{ self.handle, &raw, packed_args.ptr, packed_args.len });
}

/// Lays the tuple `args` out in `buffer` at the kernel's parameter offsets and returns the part
/// that `launchPacked` takes. `error.ArgumentCount` / `error.ArgumentSize` when the tuple does not
/// match the kernel's parameters, `error.BufferTooSmall` when `buffer` cannot hold them.
pub fn pack(self: Kernel, buffer: []u8, args: anytype) Error![]u8 {
    const values = launch_.values(args);
    const fields = @typeInfo(@TypeOf(values)).@"struct".field_types;
    const count = try self.paramCount();
    if (count != fields.len)
        return errors.recordPackageFailure(self.lib, "cuabi_kernel_get_param_count", c.CUABI_ERROR_ARGUMENT_COUNT, "the kernel takes {d} parameters; {d} arguments were given.", .{ count, fields.len }, "pass one argument per kernel parameter.");
    @memset(buffer, 0);
    var end: usize = 0;
    inline for (fields, 0..) |T, i| {
        const param = try self.paramInfo(i);
        if (param.size != @sizeOf(T))
            return errors.recordPackageFailure(self.lib, "cuabi_kernel_get_param_info", c.CUABI_ERROR_ARGUMENT_SIZE, "parameter {d} takes {d} bytes; argument {d} is a {s} of {d} bytes.", .{ i, param.size, i, @typeName(T), @sizeOf(T) }, "pass a value of the parameter's type.");
        if (param.offset + param.size > buffer.len)
            return errors.recordPackageFailure(self.lib, "cuabi_kernel_get_param_info", c.CUABI_ERROR_BUFFER_TOO_SMALL, "parameter {d} ends at byte {d}; the buffer holds {d}.", .{ i, param.offset + param.size, buffer.len }, "pass a larger buffer.");
        @memcpy(buffer[param.offset..][0..param.size], std.mem.asBytes(&values[i]));
        end = @max(end, param.offset + param.size);
    }
    return buffer[0..end];
}

/// Registers, thread limit, static shared / constant / local memory and versions on the device.
pub fn attributes(self: Kernel) Error!types.KernelAttributes {
    var out = types.outputStruct(types.KernelAttributes);
    try self.lib.call("cuabi_kernel_get_attributes", .{ self.handle, &out });
    return out;
}

/// The underlying CUfunction, for other CUDA code; valid while the kernel lives.
pub fn native(self: Kernel) Error!*anyopaque {
    var out: ?*anyopaque = null;
    try self.lib.call("cuabi_kernel_get_native", .{ self.handle, &out });
    return out.?;
}

/// The number of parameters. `error.Unsupported` with a driver older than CUDA 12.4.
pub fn paramCount(self: Kernel) Error!usize {
    var out: usize = 0;
    try self.lib.call("cuabi_kernel_get_param_count", .{ self.handle, &out });
    return out;
}

/// Offset and size of parameter `index`. `error.OutOfBounds` past the last parameter.
pub fn paramInfo(self: Kernel, index: usize) Error!ParamInfo {
    var out: ParamInfo = .{ .offset = 0, .size = 0 };
    try self.lib.call("cuabi_kernel_get_param_info", .{ self.handle, index, &out.offset, &out.size });
    return out;
}

/// How many blocks of `block_threads` threads with `shared_memory_bytes` of dynamic shared memory
/// fit on one multiprocessor at once (0 when none fits).
pub fn maxActiveBlocksPerSm(self: Kernel, block_threads: u32, shared_memory_bytes: u32) Error!u32 {
    var out: u32 = 0;
    try self.lib.call("cuabi_kernel_get_max_active_blocks_per_sm", .{ self.handle, block_threads, shared_memory_bytes, &out });
    return out;
}

/// The block size with the highest occupancy for `shared_memory_bytes` of dynamic shared memory.
pub fn suggestBlockSize(self: Kernel, shared_memory_bytes: u32) Error!BlockSuggestion {
    var out: BlockSuggestion = .{ .block_threads = 0, .min_grid_blocks = 0 };
    try self.lib.call("cuabi_kernel_suggest_block_size", .{ self.handle, shared_memory_bytes, &out.block_threads, &out.min_grid_blocks });
    return out;
}

/// Sets one attribute of the kernel's function for every later launch, and for every kernel
/// handle of the same function in this context: `kernel.setAttribute(.{ .cache_config = .shared })`.
/// Checked against the device: `error.InvalidArgument` for a carveout above 100,
/// `error.Unsupported` for a non-portable cluster size on a device without clusters. Launches
/// racing with it may see either setting.
pub fn setAttribute(self: Kernel, setting: types.KernelAttributeValue) Error!void {
    const raw = setting.toC();
    return self.lib.call("cuabi_kernel_set_attribute", .{ self.handle, raw.attribute, raw.value });
}

/// How many clusters of `config.cluster` blocks, each of `config.block` threads with
/// `config.shared_memory_bytes` of dynamic shared memory, can be resident on the device at once
/// (0 when none fits); grid, stream, flags and priority are ignored. `error.LaunchCluster` when
/// the device has no clusters, or the cluster is malformed or above the kernel's limit.
pub fn maxActiveClusters(self: Kernel, config: launch_.LaunchConfig) Error!u32 {
    const raw = config.toC();
    var out: u32 = 0;
    try self.lib.call("cuabi_kernel_get_max_active_clusters", .{ self.handle, &raw, &out });
    return out;
}
