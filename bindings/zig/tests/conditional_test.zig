//! Conditional graph nodes (cuabi 1.2): without a GPU, the refusals cuabi makes before it looks at
//! the stream and the condition as a kernel argument; on a GPU (each test skips without one), a
//! while node that runs saxpy until a kernel clears the condition, and a refusal that ends the
//! capture.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");
const gpu = @import("gpu_test.zig");

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;

/// Under NVRTC a kernel declares the device function that sets a condition.
const count_down_source =
    \\extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
    \\extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    \\    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
    \\}
    \\
;

test "a condition is an 8-byte kernel argument" {
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(cuabi.Condition));
    try testing.expectEqual(@as(usize, 8), @sizeOf(cuabi.Condition));
}

test "conditional nodes of a type or body count no driver runs are refused before the stream is looked at" {
    const lib = try support.library();
    const forged: cuabi.Stream = .{ .lib = lib, .handle = @ptrFromInt(0x5eed0) };
    const any: cuabi.Condition = @fromBackingInt(1);
    try expectFailure(forged.beginConditional(any, @fromBackingInt(0), 1), error.InvalidArgument, "conditional type 0");
    try expectFailure(forged.beginConditional(any, .@"while", 2), error.InvalidArgument, "a while node cannot have 2 bodies");
    try expectFailure(forged.beginConditional(any, .@"switch", 0), error.InvalidArgument, "switch node cannot have 0");
    try expectFailure(forged.beginConditional(any, .@"if", 1), error.InvalidHandle, "");
    try expectFailure(forged.createCondition(1, .{ .assign_default = true }), error.InvalidHandle, "");
    try expectFailure(forged.nextConditionalBody(), error.InvalidHandle, "");
    try expectFailure(forged.endConditional(), error.InvalidHandle, "");
}

test "a while node runs saxpy until a kernel clears the condition" {
    var f = try gpu.Fixture.init(1);
    defer f.deinit();
    const module = try check(f.context.compile(count_down_source, .{}));
    defer module.deinit();
    const count_down = try check(module.kernel("count_down"));
    defer count_down.deinit();
    const counter = try check(f.context.createBuffer(@sizeOf(u32), .{}));
    defer counter.deinit();
    try check(counter.write(&[_]u32{5}, .{}));
    const counter_ptr = try check(counter.devicePtr());

    try check(f.stream.beginCapture(.thread_local));
    const condition = try check(f.stream.createCondition(1, .{ .assign_default = true }));
    try check(f.stream.beginConditional(condition, .@"while", 1));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, gpu.n }));
    try check(count_down.launch(.{ .stream = f.stream }, .{ counter_ptr, condition }));
    try check(f.stream.endConditional());
    const graph = try check(f.stream.endCapture(.{}));
    defer graph.deinit();

    try testing.expectEqual(@as(usize, 1), try check(graph.nodeCount()));
    const node = try check(graph.nodeInfo(0));
    try testing.expectEqual(cuabi.GraphNodeKind.conditional, node.kind);
    try testing.expectEqual(@as(?cuabi.GraphConditionalType, .@"while"), node.conditional_type);
    try testing.expectEqual(@as(?cuabi.Condition, condition), node.condition);
    try testing.expectEqual(@as(u32, 1), node.conditional_body_count);
    try testing.expectEqual(@as(u64, 2), node.conditional_body_nodes);

    try check(graph.launch(f.stream));
    for (0..5) |_| f.saxpyOnHost(1, gpu.n);
    try f.checkY();
    var left = [_]u32{99};
    try check(counter.read(&left, .{}));
    try testing.expectEqual(@as(u32, 0), left[0]);
}

test "a forged condition is refused and the capture ended" {
    var f = try gpu.Fixture.init(1);
    defer f.deinit();
    try check(f.stream.beginCapture(.thread_local));
    try expectFailure(f.stream.beginConditional(@fromBackingInt(0x1234567), .@"if", 1), error.InvalidArgument, "was not made by");
    try testing.expectEqual(cuabi.CaptureStatus.none, try check(f.stream.captureStatus()));
    try expectFailure(f.stream.createCondition(1, .{}), error.Capture, "");
}
