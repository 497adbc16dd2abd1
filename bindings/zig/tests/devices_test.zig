//! Several GPUs and tensor maps (cuabi 1.2): without a GPU, a tensor map's description reaches
//! cuabi's rule checks whole (they come before the buffer, so a made-up handle does) and each
//! broken rule comes back named; on a Hopper GPU a TMA copy kernel reads the tile the map
//! describes; on two GPUs a copy between them is refused without peer access, naming both, staged
//! on request and direct once enabled. Each GPU test skips, saying why, where it cannot run.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");
const reference = @import("cuabi_reference");
const c = cuabi.c;

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;

/// A buffer handle cuabi never issued: refused without touching memory, after the rules.
fn madeUpBuffer(lib: *const cuabi.Library) cuabi.Buffer {
    return .{ .lib = lib, .handle = @ptrFromInt((@as(usize, 4) << 56) | 4000004) };
}

const valid: cuabi.TensorMapParams = .{ .global_dims = &.{ 64, 32 }, .global_strides = &.{256}, .box_dims = &.{ 32, 8 } };

test "a valid tensor map description passes cuabi's rules and reaches the buffer handle" {
    const lib = try support.library();
    try expectFailure(madeUpBuffer(lib).tensorMap(valid), error.InvalidHandle, "buffer");
    try testing.expectEqual(@as(usize, 128), @sizeOf(cuabi.TensorMap));
}

test "each broken tensor map rule comes back named with its values" {
    const buffer = madeUpBuffer(try support.library());
    var narrow = valid;
    narrow.box_dims = &.{ 3, 8 };
    try expectFailure(buffer.tensorMap(narrow), error.InvalidArgument, "box_dims[0] 3 x 4-byte FLOAT32 = 12 bytes");
    var six = valid;
    const ones: [cuabi.tensor_map_max_rank + 1]u64 = @splat(1);
    six.global_dims = &ones;
    try expectFailure(buffer.tensorMap(six), error.InvalidArgument, "rank is 6");
    var steps = valid;
    steps.element_strides = &.{ 1, 9 };
    try expectFailure(buffer.tensorMap(steps), error.InvalidArgument, "element_strides[1] is 9");
    var swizzled = valid;
    swizzled.swizzle = .@"32b";
    swizzled.box_dims = &.{ 16, 8 };
    try expectFailure(buffer.tensorMap(swizzled), error.InvalidArgument, "exceeds the 32-byte span of swizzle 1");
    var interleaved = valid;
    interleaved.interleave = .@"16b";
    try expectFailure(buffer.tensorMap(interleaved), error.InvalidArgument, "needs rank 3 or more");
    var integer_nan = valid;
    integer_nan.data_type = .int32;
    integer_nan.oob_fill = .nan_request_zero_fma;
    try expectFailure(buffer.tensorMap(integer_nan), error.InvalidArgument, "data_type is INT32");
    var promoted = valid;
    promoted.l2_promotion = @enumFromInt(9);
    try expectFailure(buffer.tensorMap(promoted), error.InvalidArgument, "l2_promotion is 9");
    var strided = valid;
    strided.global_strides = &.{250};
    try expectFailure(buffer.tensorMap(strided), error.InvalidArgument, "global_strides[0]");
}

test "a copy between devices refuses unknown flags before the buffers" {
    const buffer = madeUpBuffer(try support.library());
    try expectFailure(buffer.copyFromPeer(0, buffer, 0, 16, @bitCast(@as(u32, 6)), null), error.InvalidArgument, "flags is 0x6");
    try expectFailure(buffer.copyFromPeer(0, buffer, 0, 16, .{ .staged = true }, null), error.InvalidHandle, "dst");
}


test "a TMA copy kernel reads the tile a tensor map describes, zeros past the edge" {
    const context = try support.gpu();
    const info = try check(context.deviceInfo());
    if (info.compute_capability_major < 9) return error.SkipZigTest;
    var values: [64 * 32]f32 = undefined;
    for (&values, 0..) |*v, i| v.* = @floatFromInt((i / 64) * 1000 + i % 64);
    const tensor = try check(context.createBuffer(@sizeOf(@TypeOf(values)), .{}));
    defer tensor.deinit();
    try check(tensor.write(&values, .{}));
    const map = try check(tensor.tensorMap(valid));
    const module = try check(context.compile(reference.tma_copy, .{}));
    defer module.deinit();
    const kernel = try check(module.kernel("copy_tile"));
    defer kernel.deinit();
    const out = try check(context.createBuffer(8 * 32 * 4, .{}));
    defer out.deinit();
    const origins = [_][2]i32{ .{ 32, 16 }, .{ 48, 28 } };
    for (origins) |at| {
        try check(kernel.launch(.{ .block = .{ 128, 1, 1 } }, .{ map, try check(out.devicePtr()), at[0], at[1] }));
        var tile: [8 * 32]f32 = undefined;
        try check(out.read(&tile, .{}));
        for (0..8) |y| for (0..32) |x| {
            const gx = @as(usize, @intCast(at[0])) + x;
            const gy = @as(usize, @intCast(at[1])) + y;
            const want: f32 = if (gx < 64 and gy < 32) @floatFromInt(gy * 1000 + gx) else 0;
            try testing.expectEqual(want, tile[y * 32 + x]);
        };
    }
    var too_tall = valid;
    too_tall.global_dims = &.{ 64, 33 };
    try expectFailure(tensor.tensorMap(too_tall), error.OutOfBounds, "spans 8448 bytes");
}

test "a copy between two devices needs peer access or staging" {
    const first = try support.gpu();
    const lib = try support.library();
    if (try check(lib.deviceCount()) < 2) {
        std.debug.print("note: the two-device test skips: this machine has one device\n", .{});
        return error.SkipZigTest;
    }
    const second = try check(lib.createContext(.{ .device = 1 }));
    defer second.deinit();
    var data: [4096]u32 = undefined;
    for (&data, 0..) |*v, i| v.* = @as(u32, @intCast(i)) *% 2654435761;
    const source = try check(first.createBuffer(@sizeOf(@TypeOf(data)), .{}));
    defer source.deinit();
    try check(source.write(&data, .{}));
    const target = try check(second.createBuffer(@sizeOf(@TypeOf(data)), .{ .flags = .{ .zero = true } }));
    defer target.deinit();
    try check(second.disablePeerAccess(first));
    try expectFailure(target.copyFromPeer(0, source, 0, @sizeOf(@TypeOf(data)), .{}, null), error.ContextMismatch, "device 0 (");
    try testing.expect(std.mem.find(u8, cuabi.lastError().message(), "device 1 (") != null);
    try check(target.copyFromPeer(0, source, 0, @sizeOf(@TypeOf(data)), .{ .staged = true }, null));
    var back: [4096]u32 = undefined;
    try check(target.read(&back, .{}));
    try testing.expectEqualSlices(u32, &data, &back);
    if (!try check(second.canAccessPeer(first))) return;
    try check(target.fill(@as(u32, 0), .{}));
    try check(second.enablePeerAccess(first));
    try check(second.enablePeerAccess(first));
    try testing.expect(try check(second.peerAccessEnabled(first)));
    try check(target.copyFromPeer(0, source, 0, @sizeOf(@TypeOf(data)), .{}, null));
    try check(target.read(&back, .{}));
    try testing.expectEqualSlices(u32, &data, &back);
    try check(second.disablePeerAccess(first));
    try testing.expect(!try check(second.peerAccessEnabled(first)));
}
