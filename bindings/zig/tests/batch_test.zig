//! Batched launches (cuabi 1.2): without a GPU, the empty batch and a refused item named by its
//! index; on a GPU (each test skips without one), dependent launches in one batch, and a refused
//! launch that stops the batch at its index.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");
const gpu = @import("gpu_test.zig");
const c = cuabi.c;

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;

test "an empty batch launches nothing" {
    const lib = try support.library();
    try check(cuabi.Batch.launch(lib, &.{}, null));
    try testing.expectEqual(@as(usize, c.CUABI_LAUNCH_BATCH_MAX_ITEMS), cuabi.Batch.max_items);
}

test "a refused item is named by its index" {
    const lib = try support.library();
    const items = [_]cuabi.Batch.Item{.{ .kernel = null, .config = null, .args = null, .arg_count = 0, .@"packed" = null, .packed_size = 0 }};
    var index: usize = 99;
    try expectFailure(cuabi.Batch.launch(lib, &items, &index), error.InvalidHandle, "cuabi_launch_batch item 0 of 1: ");
    try testing.expectEqual(@as(usize, 0), index);
    try testing.expect(std.mem.startsWith(u8, cuabi.lastError().message(), "cuabi_launch_batch item 0 of 1: "));
}

test "a batch of dependent launches computes saxpy in order" {
    var f = try gpu.Fixture.init(1);
    defer f.deinit();
    const config = f.config().toC();
    var buffers: [16][64]u8 = undefined;
    var items: [16]cuabi.Batch.Item = undefined;
    for (&items, &buffers, 0..) |*item, *buffer, k| {
        const a: f32 = @floatFromInt(k + 1);
        item.* = cuabi.Batch.item(f.saxpy, &config, try check(f.saxpy.pack(buffer, .{ a, f.xp, f.yp, gpu.n })));
        f.saxpyOnHost(a, gpu.n);
    }
    try check(cuabi.Batch.launch(f.saxpy.lib, &items, null));
    try f.checkY();
}

test "a refused launch stops the batch at its index" {
    var f = try gpu.Fixture.init(1);
    defer f.deinit();
    const config = f.config().toC();
    var too_large = config;
    too_large.block = .{ 1024, 2, 1 };
    var buffers: [8][64]u8 = undefined;
    var items: [8]cuabi.Batch.Item = undefined;
    for (&items, &buffers, 0..) |*item, *buffer, k| {
        const packed_args = try check(f.saxpy.pack(buffer, .{ @as(f32, 1), f.xp, f.yp, gpu.n }));
        item.* = cuabi.Batch.item(f.saxpy, if (k == 5) &too_large else &config, packed_args);
        if (k < 5) f.saxpyOnHost(1, gpu.n);
    }
    var index: usize = 99;
    try expectFailure(cuabi.Batch.launch(f.saxpy.lib, &items, &index), error.LaunchBlock, "cuabi_launch_batch item 5 of 8: ");
    try testing.expectEqual(@as(usize, 5), index);
    try f.checkY();
}
