//! Stream-ordered and managed memory (cuabi 1.2): memory pools, buffers allocated and freed on a
//! stream (graph memory nodes in a capture), managed buffers with prefetch and advice. The checks
//! that need no GPU run everywhere; the GPU tests skip, printing cuabi's reason, without one.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const c = cuabi.c;
const support = @import("support.zig");
const gpu = @import("gpu_test.zig");

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;
const Fixture = gpu.Fixture;
const n = gpu.n;
const bytes = n * @sizeOf(f32);

fn forged(comptime T: type) *T {
    return @ptrFromInt(0x5eed_0000_0bad_f00d);
}

test "memory calls on forged handles are InvalidHandle, and unknown values are refused first" {
    const lib = try support.library();
    const pool: cuabi.MemoryPool = .{ .lib = lib, .handle = forged(c.cuabi_memory_pool) };
    try expectFailure(pool.attribute(.used_current), error.InvalidHandle, "");
    try expectFailure(pool.trim(0), error.InvalidHandle, "");
    try expectFailure(pool.setReleaseThreshold(1 << 20), error.InvalidHandle, "");
    pool.deinit(); // harmless
    const buffer: cuabi.Buffer = .{ .lib = lib, .handle = forged(c.cuabi_buffer) };
    try expectFailure(buffer.freeAsync(null), error.InvalidHandle, "");
    try expectFailure(buffer.hostBytes(), error.InvalidHandle, "");
    try expectFailure(buffer.prefetch(0, 64, .host, null), error.InvalidHandle, "");
    try expectFailure(buffer.advise(0, 64, .set_read_mostly, @enumFromInt(0)), error.InvalidHandle, "");
    try expectFailure(buffer.advise(0, 64, @enumFromInt(9), .host), error.InvalidArgument, "advice 9");
    try expectFailure(buffer.prefetch(0, 64, @enumFromInt(-2), null), error.InvalidArgument, "location -2");
    try expectFailure(pool.attribute(@enumFromInt(0)), error.InvalidArgument, "attribute 0");
    const context: cuabi.Context = .{ .lib = lib, .handle = forged(c.cuabi_context) };
    try expectFailure(cuabi.Buffer.createAsync(context, 0, .{}), error.InvalidArgument, "size is 0");
    try expectFailure(cuabi.Buffer.createManaged(context, 0, .{}), error.InvalidArgument, "size is 0");
    try expectFailure(cuabi.Buffer.createManaged(context, 64, @bitCast(@as(u32, 4))), error.InvalidArgument, "flags is 0x4");
    try expectFailure(cuabi.Buffer.createAsync(context, 64, .{}), error.InvalidHandle, "");
    try expectFailure(cuabi.MemoryPool.create(context, .{}), error.InvalidHandle, "");
    try expectFailure(cuabi.MemoryPool.default(context), error.InvalidHandle, "");
}

test "a stream-ordered buffer allocated, used and freed in a capture replays three times" {
    var f = try Fixture.init(1);
    defer f.deinit();
    try check(f.stream.beginCapture(.thread_local));
    const scratch = try check(cuabi.Buffer.createAsync(f.context, bytes, .{ .stream = f.stream }));
    try check(scratch.fill(@as(f32, 1), .{ .stream = f.stream }));
    const sp = try check(scratch.devicePtr());
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, sp, n })); // scratch = 2x + 1
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), sp, f.yp, n })); // y += scratch
    try check(scratch.freeAsync(f.stream));
    const graph = try check(f.stream.endCapture(.{}));
    defer graph.deinit();
    for (0..3) |_| {
        try check(graph.launch(f.stream));
        for (f.expect, 0..) |*y, i| y.* += 2 * @as(f32, @floatFromInt(i)) + 1;
        try f.checkY();
    }
    try expectFailure(scratch.size(), error.InvalidHandle, "");
}

test "a pool keeps freed memory below its threshold until trimmed" {
    const context = try support.gpu();
    const pool = try check(cuabi.MemoryPool.create(context, .{ .release_threshold = 64 << 20 }));
    defer pool.deinit();
    try testing.expectEqual(@as(u64, 64 << 20), try check(pool.attribute(.release_threshold)));
    const stream = try check(context.createStream(.{}));
    defer stream.deinit();
    const held = try check(cuabi.Buffer.createAsync(context, 32 << 20, .{ .pool = pool, .stream = stream, .flags = .{ .zero = true } }));
    try check(held.freeAsync(stream));
    try check(stream.synchronize());
    try testing.expect(try check(pool.attribute(.reserved_current)) >= 32 << 20);
    try testing.expect(try check(pool.attribute(.used_high)) >= 32 << 20);
    try check(pool.trim(0));
    try testing.expectEqual(@as(u64, 0), try check(pool.attribute(.reserved_current)));
    const plain = try check(context.createBuffer(64, .{}));
    defer plain.deinit();
    try expectFailure(plain.freeAsync(null), error.InvalidArgument, "not allocated in stream order");
}

test "a managed buffer: host writes, device computes after a prefetch, host reads after one back" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const lib = f.context.lib;
    if (try check(lib.deviceAttribute(0, @fromBackingInt(89))) == 0) return error.SkipZigTest; // concurrent managed access
    const data = try check(cuabi.Buffer.createManaged(f.context, bytes, .{}));
    defer data.deinit();
    const host = try check(data.hostBytes());
    const values: []f32 = @alignCast(std.mem.bytesAsSlice(f32, host));
    @memset(values, 5);
    try check(data.advise(0, bytes, .set_preferred_location, @enumFromInt(0)));
    try check(data.prefetch(0, bytes, @enumFromInt(0), f.stream));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 3), f.xp, try check(data.devicePtr()), n }));
    try check(data.prefetch(0, bytes, .host, f.stream));
    try check(f.stream.synchronize());
    for (values, 0..) |v, i| try testing.expectEqual(3 * @as(f32, @floatFromInt(i)) + 5, v);
    try expectFailure(data.prefetch(bytes - 4, 8, .host, null), error.OutOfBounds, "");
    try expectFailure(data.advise(0, 64, .set_accessed_by, @enumFromInt(4096)), error.InvalidDevice, "");
    try expectFailure(f.y.hostBytes(), error.Unsupported, "");
}
