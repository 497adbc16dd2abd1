//! The package on a GPU: buffers, launches in both forms, refused launches, streams and events,
//! graphs and their updates, the graph cache, threads, released handles. Each test skips, printing
//! cuabi's reason, where there is no driver or device; with one, each runs and asserts.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;

/// Elements per buffer: 256 blocks of 256 threads.
pub const n: u32 = 1 << 16;
pub const block = 256;

/// A module of the test source, its saxpy kernel, a stream and two buffers x and y of n floats,
/// with x[i] = i and y[i] = `y_value`.
pub const Fixture = struct {
    context: cuabi.Context,
    module: cuabi.Module,
    saxpy: cuabi.Kernel,
    stream: cuabi.Stream,
    x: cuabi.Buffer,
    y: cuabi.Buffer,
    xp: cuabi.DevicePtr,
    yp: cuabi.DevicePtr,
    host: []f32,
    expect: []f32,

    pub fn init(y_value: f32) !Fixture {
        const context = try support.gpu();
        var f: Fixture = undefined;
        f.context = context;
        f.module = try check(context.compile(support.source, .{ .name_expressions = &support.name_expressions }));
        errdefer f.module.deinit();
        f.saxpy = try check(f.module.kernel("saxpy"));
        errdefer f.saxpy.deinit();
        f.stream = try check(context.createStream(.{}));
        errdefer f.stream.deinit();
        f.host = try testing.allocator.alloc(f32, n);
        errdefer testing.allocator.free(f.host);
        f.expect = try testing.allocator.alloc(f32, n);
        errdefer testing.allocator.free(f.expect);
        for (f.host, 0..) |*v, i| v.* = @floatFromInt(i);
        f.x = try check(context.createBuffer(n * @sizeOf(f32), .{}));
        errdefer f.x.deinit();
        try check(f.x.write(f.host, .{}));
        @memset(f.expect, y_value);
        f.y = try check(context.createBuffer(n * @sizeOf(f32), .{}));
        errdefer f.y.deinit();
        try check(f.y.write(f.expect, .{}));
        f.xp = try check(f.x.devicePtr());
        f.yp = try check(f.y.devicePtr());
        return f;
    }

    pub fn deinit(f: *Fixture) void {
        f.x.deinit();
        f.y.deinit();
        f.stream.deinit();
        f.saxpy.deinit();
        f.module.deinit();
        testing.allocator.free(f.host);
        testing.allocator.free(f.expect);
    }

    /// The launch configuration of every saxpy here: one thread per element, on the stream.
    pub fn config(f: *const Fixture) cuabi.LaunchConfig {
        return .{ .grid = .{ n / block, 1, 1 }, .block = .{ block, 1, 1 }, .stream = f.stream };
    }

    /// expect[i] = a * x[i] + expect[i] for i < `count`, in f32 as the kernel computes it.
    pub fn saxpyOnHost(f: *Fixture, a: f32, count: usize) void {
        for (f.expect[0..count], 0..) |*y, i| y.* = a * @as(f32, @floatFromInt(i)) + y.*;
    }

    /// Synchronizes the stream and compares y with `expect`.
    pub fn checkY(f: *Fixture) !void {
        try check(f.stream.synchronize());
        try check(f.y.read(f.host, .{}));
        try testing.expectEqualSlices(f32, f.expect, f.host);
    }
};

test "buffers take and give slices; transfers out of bounds are refused" {
    const context = try support.gpu();
    const values = try testing.allocator.alloc(f32, n);
    defer testing.allocator.free(values);
    const back = try testing.allocator.alloc(f32, n);
    defer testing.allocator.free(back);
    for (values, 0..) |*v, i| v.* = @as(f32, @floatFromInt(i)) * 0.25;

    const x = try check(context.createBuffer(n * @sizeOf(f32), .{}));
    defer x.deinit();
    try testing.expectEqual(@as(usize, n * @sizeOf(f32)), try check(x.size()));
    try testing.expect(try check(x.devicePtr()) != .null);
    try check(x.write(values, .{}));
    try check(x.read(back, .{}));
    try testing.expectEqualSlices(f32, values, back);

    try expectFailure(x.write(values, .{ .offset = 4 }), error.OutOfBounds, "");
    try expectFailure(x.read(back, .{ .offset = 1 }), error.OutOfBounds, "");

    // A pointer to an array works as a slice; an offset is in bytes.
    try check(x.write(&[_]f32{ -1, -2 }, .{ .offset = 8 }));
    var four: [4]f32 = undefined;
    try check(x.read(&four, .{}));
    try testing.expectEqualSlices(f32, &.{ 0, 0.25, -1, -2 }, &four);

    const y = try check(context.createBuffer(n * @sizeOf(f32), .{ .flags = .{ .zero = true } }));
    defer y.deinit();
    try check(y.read(back, .{}));
    for (back) |v| try testing.expectEqual(@as(f32, 0), v);
    try check(y.copyFrom(0, x, 0, n * @sizeOf(f32), null));
    try check(y.read(back, .{}));
    try check(x.read(values, .{}));
    try testing.expectEqualSlices(f32, values, back);

    try check(y.fill(@as(f32, 3.5), .{}));
    try check(y.fill(@as(u16, 0x3c00), .{ .offset = 8, .count = 2 }));
    var words: [4]u32 = undefined;
    try check(y.read(&words, .{}));
    try testing.expectEqualSlices(u32, &.{ @bitCast(@as(f32, 3.5)), @bitCast(@as(f32, 3.5)), 0x3c003c00, @bitCast(@as(f32, 3.5)) }, &words);
    try expectFailure(y.fill(@as(u32, 0), .{ .offset = 4, .count = n }), error.OutOfBounds, "");

    // Memory of another owner, wrapped: readable through the wrapper, not freed with it.
    const wrapped = try check(context.wrapBuffer((try check(x.devicePtr())).address(), 4 * @sizeOf(f32)));
    try check(wrapped.read(&four, .{}));
    wrapped.deinit();
    try testing.expectEqualSlices(f32, &.{ 0, 0.25, -1, -2 }, &four);
    four = .{ 9, 9, 9, 9 };
    try check(x.read(&four, .{}));
    try testing.expectEqualSlices(f32, &.{ 0, 0.25, -1, -2 }, &four);
}

test "a launch takes a tuple of Zig values; the packed form takes pack()'s bytes" {
    var f = try Fixture.init(1);
    defer f.deinit();
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, f.yp, n }));
    f.saxpyOnHost(2, n);
    try f.checkY();

    var buffer: [64]u8 = undefined;
    const packed_args = try check(f.saxpy.pack(&buffer, .{ @as(f32, 2), f.xp, f.yp, n }));
    try testing.expectEqual(@as(usize, 28), packed_args.len);
    try check(f.saxpy.launchPacked(f.config(), packed_args));
    f.saxpyOnHost(2, n);
    try f.checkY();

    // Without a stream the launch runs on the per-thread stream and waits.
    try check(f.saxpy.launch(.{ .grid = .{ n / block, 1, 1 }, .block = .{ block, 1, 1 } }, .{ @as(f32, 1), f.xp, f.yp, n }));
    f.saxpyOnHost(1, n);
    try f.checkY();
}

test "refused launches name the values and run nothing" {
    var f = try Fixture.init(1);
    defer f.deinit();
    var wide = f.config();
    wide.block = .{ 1024, 2, 1 };
    try expectFailure(f.saxpy.launch(wide, .{ @as(f32, 2), f.xp, f.yp, n }), error.LaunchBlock, "2048");
    try testing.expectEqualStrings("cuabi_launch", cuabi.lastError().function);
    var empty = f.config();
    empty.grid = .{ 0, 1, 1 };
    try expectFailure(f.saxpy.launch(empty, .{ @as(f32, 2), f.xp, f.yp, n }), error.LaunchGrid, "");
    try expectFailure(f.saxpy.launch(f.config(), .{ @as(f64, 2), f.xp, f.yp, n }), error.ArgumentSize, "parameter 0");
    try expectFailure(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, f.yp }), error.ArgumentCount, "");
    const too_short: [12]u8 = @splat(0);
    try expectFailure(f.saxpy.launchPacked(f.config(), &too_short), error.ArgumentSize, "");

    var buffer: [64]u8 = undefined;
    try expectFailure(f.saxpy.pack(&buffer, .{ @as(f32, 2), f.xp, f.yp }), error.ArgumentCount, "4 parameters");
    try expectFailure(f.saxpy.pack(&buffer, .{ @as(f64, 2), f.xp, f.yp, n }), error.ArgumentSize, "parameter 0");
    var small: [16]u8 = undefined;
    try expectFailure(f.saxpy.pack(&small, .{ @as(f32, 2), f.xp, f.yp, n }), error.BufferTooSmall, "");
    try f.checkY();
}

test "a template kernel by name expression, and a struct passed by value" {
    var f = try Fixture.init(3);
    defer f.deinit();
    const scale = try check(f.module.kernel("scale<float>"));
    defer scale.deinit();
    try check(scale.launch(f.config(), .{ f.yp, @as(f32, 0.5), n }));
    for (f.expect) |*v| v.* *= 0.5;
    try f.checkY();
    try expectFailure(f.module.kernel("scale<int>"), error.KernelNotFound, "");

    const Pair = extern struct { first: f32, second: u32 };
    const store = try check(f.module.kernel("store_pair"));
    defer store.deinit();
    try check(store.launch(.{}, .{ Pair{ .first = 1.5, .second = 7 }, f.yp }));
    var two: [2]f32 = undefined;
    try check(f.y.read(&two, .{}));
    try testing.expectEqualSlices(f32, &.{ 1.5, 7 }, &two);
}

test "kernel facts: parameters, attributes, occupancy" {
    var f = try Fixture.init(0);
    defer f.deinit();
    try testing.expectEqual(@as(usize, 4), try check(f.saxpy.paramCount()));
    try testing.expectEqual(cuabi.Kernel.ParamInfo{ .offset = 24, .size = 4 }, try check(f.saxpy.paramInfo(3)));
    try expectFailure(f.saxpy.paramInfo(4), error.OutOfBounds, "");
    const attributes = try check(f.saxpy.attributes());
    try testing.expect(attributes.max_threads_per_block >= block);
    try testing.expect(attributes.binary_version >= 75);
    const suggestion = try check(f.saxpy.suggestBlockSize(0));
    try testing.expect(suggestion.block_threads > 0 and suggestion.min_grid_blocks > 0);
    try testing.expect(try check(f.saxpy.maxActiveBlocksPerSm(block, 0)) >= 1);
    _ = try check(f.saxpy.native());
}

test "a compiled image loads back into the context" {
    var f = try Fixture.init(1);
    defer f.deinit();
    const image = try check(f.module.image(testing.allocator));
    defer testing.allocator.free(image);
    const loaded = try check(f.context.loadImage(image));
    defer loaded.deinit();
    const info = try check(loaded.info());
    try testing.expectEqual(cuabi.ModuleOrigin.image, info.origin);
    try testing.expect(info.loaded);
    const saxpy = try check(loaded.kernel("saxpy"));
    defer saxpy.deinit();
    try check(saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    f.saxpyOnHost(1, n);
    try f.checkY();
    try expectFailure(f.context.loadImage("not an image"), error.InvalidImage, "");
}

test "context facts, counters, native handles and wrapped streams" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const info = try check(f.context.deviceInfo());
    try testing.expect(std.mem.sliceTo(&info.name, 0).len > 0);
    try testing.expect(info.compute_capability_major * 10 + info.compute_capability_minor >= 75);
    _ = try check(f.context.native());
    try check(f.context.synchronize());

    const before = try check(f.context.counters());
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    const after = try check(f.context.counters());
    try testing.expectEqual(before.launches + 1, after.launches);

    const wrapped = try check(f.context.wrapStream(try check(f.stream.native())));
    try check(f.saxpy.launch(.{ .grid = .{ n / block, 1, 1 }, .block = .{ block, 1, 1 }, .stream = wrapped }, .{ @as(f32, 1), f.xp, f.yp, n }));
    try check(wrapped.synchronize());
    wrapped.deinit();
    f.saxpyOnHost(1, n);
    f.saxpyOnHost(1, n);
    try f.checkY(); // the wrapped stream's deinit left the stream itself working
}

test "events order streams and time work" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const other = try check(f.context.createStream(.{ .priority = -1 }));
    defer other.deinit();
    const start = try check(f.context.createEvent(.{}));
    defer start.deinit();
    const end = try check(f.context.createEvent(.{ .flags = .{ .blocking_sync = true } }));
    defer end.deinit();
    try check(start.record(f.stream));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    try check(end.record(f.stream));
    try check(other.waitEvent(end));
    try check(other.synchronize());
    try testing.expect(try check(end.isDone()));
    try testing.expect(try check(f.stream.isDone()));
    try testing.expect(try check(cuabi.Event.elapsedMs(start, end)) >= 0);

    const untimed = try check(f.context.createEvent(.{ .flags = .{ .disable_timing = true } }));
    defer untimed.deinit();
    try check(untimed.record(null));
    try check(untimed.synchronize());
    try expectFailure(cuabi.Event.elapsedMs(start, untimed), error.InvalidArgument, "");
    f.saxpyOnHost(1, n);
    try f.checkY();
}

test "a captured graph: inventory, replay, argument and geometry updates, whole-graph update" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const ones: [n]f32 = @splat(1);
    const x2 = try check(f.context.createBuffer(n * @sizeOf(f32), .{}));
    defer x2.deinit();
    try check(x2.write(&ones, .{}));
    const y2 = try check(f.context.createBuffer(n * @sizeOf(f32), .{ .flags = .{ .zero = true } }));
    defer y2.deinit();
    const x2p = try check(x2.devicePtr());
    const y2p = try check(y2.devicePtr());

    try check(f.stream.beginCapture(.thread_local));
    try testing.expectEqual(cuabi.CaptureStatus.active, try check(f.stream.captureStatus()));
    for (0..8) |_| try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    const graph = try check(f.stream.endCapture(.{}));
    defer graph.deinit();
    try testing.expectEqual(cuabi.CaptureStatus.none, try check(f.stream.captureStatus()));

    try testing.expectEqual(@as(usize, 8), try check(graph.nodeCount()));
    for (0..8) |i| {
        const node = try check(graph.nodeInfo(i));
        try testing.expectEqual(cuabi.GraphNodeKind.kernel, node.kind);
        try testing.expectEqual([3]u32{ n / block, 1, 1 }, node.grid);
        try testing.expectEqual([3]u32{ block, 1, 1 }, node.block);
        try testing.expectEqual(@as(?u32, 4), node.param_count);
        try testing.expectEqual(@as(u64, 28), node.param_bytes);
        try testing.expect(node.kernel != null);
    }
    try expectFailure(graph.nodeInfo(8), error.GraphNode, "");
    const name = try check(graph.nodeKernelName(testing.allocator, 0));
    defer testing.allocator.free(name);
    try testing.expectEqualStrings("saxpy", name);
    try testing.expectEqual(cuabi.Kernel.ParamInfo{ .offset = 8, .size = 8 }, try check(graph.nodeParamInfo(0, 1)));

    try check(graph.upload(f.stream));
    try check(graph.launch(f.stream));
    f.saxpyOnHost(1, n);
    for (0..7) |_| f.saxpyOnHost(1, n);
    try f.checkY();

    // Nodes 0 and 1 onto x2 and y2 (which the graph reaches only through arguments: retained).
    try check(graph.retainBuffer(x2));
    try check(graph.retainBuffer(y2));
    try check(graph.updateKernelArgs(0, .{ @as(f32, 1), x2p, y2p, n }));
    var buffer: [64]u8 = undefined;
    try check(graph.updateKernelArgsPacked(1, try check(f.saxpy.pack(&buffer, .{ @as(f32, 1), x2p, y2p, n }))));
    // Node 2 on the first half of the elements only.
    try check(graph.updateKernelGeometry(2, .{ n / block / 2, 1, 1 }, .{ block, 1, 1 }, 0));
    try expectFailure(graph.updateKernelGeometry(2, .{ 1, 1, 1 }, .{ 1024, 2, 1 }, 0), error.LaunchBlock, "2048");
    try expectFailure(graph.updateKernelArgs(0, .{ @as(f64, 1), x2p, y2p, n }), error.ArgumentSize, "parameter 0");
    try expectFailure(graph.updateKernelArgs(8, .{ @as(f32, 1), x2p, y2p, n }), error.GraphNode, "");
    try testing.expectEqual([3]u32{ n / block / 2, 1, 1 }, (try check(graph.nodeInfo(2))).grid);
    try check(graph.launch(f.stream));
    f.saxpyOnHost(1, n / 2);
    for (3..8) |_| f.saxpyOnHost(1, n);
    try f.checkY();
    var y2_values: [n]f32 = undefined;
    try check(y2.read(&y2_values, .{}));
    for (y2_values) |v| try testing.expectEqual(@as(f32, 2), v);

    // A new capture of the same shape updates the executable in place: a = 2 everywhere, on x, y.
    try check(f.stream.beginCapture(.thread_local));
    for (0..8) |_| try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, f.yp, n }));
    const update = try check(f.stream.endCaptureUpdate(graph, .{}));
    try testing.expect(!update.reinstantiated());
    try testing.expectEqualStrings("", update.reason());
    try check(graph.launch(f.stream));
    for (0..8) |_| f.saxpyOnHost(2, n);
    try f.checkY();

    // One of another shape is refused when re-instantiation is not allowed; the capture still ends.
    try check(f.stream.beginCapture(.thread_local));
    for (0..7) |_| try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, f.yp, n }));
    try expectFailure(f.stream.endCaptureUpdate(graph, .{ .no_reinstantiate = true }), error.GraphUpdate, "7 nodes");
    try testing.expectEqual(cuabi.CaptureStatus.none, try check(f.stream.captureStatus()));
    try testing.expectEqual(@as(usize, 8), try check(graph.nodeCount()));
}

test "a captured fill is a memset node whose value can change" {
    var f = try Fixture.init(0);
    defer f.deinit();
    try check(f.stream.beginCapture(.global));
    try check(f.y.fill(@as(u32, 7), .{ .stream = f.stream }));
    const graph = try check(f.stream.endCapture(.{ .flags = .{ .upload = true } }));
    defer graph.deinit();
    const node = try check(graph.nodeInfo(0));
    try testing.expectEqual(cuabi.GraphNodeKind.memset, node.kind);
    try testing.expectEqual(@as(u32, 7), node.memset_value);
    try testing.expectEqual(@as(u32, 4), node.memset_element_size);
    try check(graph.updateMemsetValue(0, 9));
    try check(graph.launch(null));
    const words = try testing.allocator.alloc(u32, n);
    defer testing.allocator.free(words);
    try check(f.y.read(words, .{}));
    for (words) |w| try testing.expectEqual(@as(u32, 9), w);
}

test "the graph cache finds a graph by context, key and capacity class" {
    var f = try Fixture.init(0);
    defer f.deinit();
    try check(f.stream.beginCapture(.relaxed));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    const graph = try check(f.stream.endCapture(.{}));
    defer graph.deinit();
    try check(f.context.graphCacheInsert("zig-test", 1000, graph));
    const same_class = (try check(f.context.graphCacheLookup("zig-test", 1024))) orelse return error.TestExpectedHit;
    defer same_class.deinit();
    try testing.expectEqual(@as(usize, 1), try check(same_class.nodeCount()));
    try testing.expectEqual(@as(?cuabi.Graph, null), try check(f.context.graphCacheLookup("zig-test", 2000)));
    try testing.expectEqual(@as(?cuabi.Graph, null), try check(f.context.graphCacheLookup("other", 1000)));
    try check(f.context.graphCacheClear());
    try testing.expectEqual(@as(?cuabi.Graph, null), try check(f.context.graphCacheLookup("zig-test", 1000)));
}

test "four std.Threads launch one kernel at once, each on its own stream" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const launches = 200;
    const Worker = struct {
        fn run(context: cuabi.Context, saxpy: cuabi.Kernel, failure: *?anyerror) void {
            work(context, saxpy) catch |err| {
                std.debug.print("thread: {f}\n", .{cuabi.lastError()});
                failure.* = err;
            };
        }
        fn work(context: cuabi.Context, saxpy: cuabi.Kernel) !void {
            const stream = try context.createStream(.{});
            defer stream.deinit();
            const x = try context.createBuffer(n * @sizeOf(f32), .{});
            defer x.deinit();
            const y = try context.createBuffer(n * @sizeOf(f32), .{});
            defer y.deinit();
            try x.fill(@as(f32, 1), .{ .stream = stream });
            try y.fill(@as(f32, 0), .{ .stream = stream });
            const config: cuabi.LaunchConfig = .{ .grid = .{ n / block, 1, 1 }, .block = .{ block, 1, 1 }, .stream = stream };
            const xp = try x.devicePtr();
            const yp = try y.devicePtr();
            for (0..launches) |_| try saxpy.launch(config, .{ @as(f32, 1), xp, yp, n });
            try stream.synchronize();
            const values = try std.heap.page_allocator.alloc(f32, n);
            defer std.heap.page_allocator.free(values);
            try y.read(values, .{});
            for (values) |v| if (v != launches) return error.WrongValue;
        }
    };
    var failures: [4]?anyerror = @splat(null);
    var threads: [4]std.Thread = undefined;
    for (&threads, &failures) |*thread, *failure| thread.* = try std.Thread.spawn(.{}, Worker.run, .{ f.context, f.saxpy, failure });
    for (threads) |thread| thread.join();
    for (failures) |failure| try testing.expectEqual(@as(?anyerror, null), failure);
}

test "released handles: a second deinit is harmless, a use is InvalidHandle" {
    const context = try support.gpu();
    const buffer = try check(context.createBuffer(64, .{}));
    buffer.deinit();
    buffer.deinit();
    try expectFailure(buffer.size(), error.InvalidHandle, "");
    const stream = try check(context.createStream(.{}));
    stream.deinit();
    stream.deinit();
    try expectFailure(stream.synchronize(), error.InvalidHandle, "");
    const event = try check(context.createEvent(.{}));
    event.deinit();
    event.deinit();
    try expectFailure(event.synchronize(), error.InvalidHandle, "");
    const module = try check(context.compile(support.source, .{ .name_expressions = &support.name_expressions }));
    const kernel = try check(module.kernel("saxpy"));
    module.deinit();
    module.deinit();
    try check(kernel.launch(.{}, .{ @as(f32, 0), cuabi.DevicePtr.null, cuabi.DevicePtr.null, @as(u32, 0) })); // the kernel keeps its module
    kernel.deinit();
    kernel.deinit();
    try expectFailure(kernel.paramCount(), error.InvalidHandle, "");

    const second = try check((try support.library()).createContext(.{}));
    const kept = try check(second.createBuffer(64, .{}));
    second.deinit();
    second.deinit();
    try expectFailure(second.createStream(.{}), error.InvalidHandle, "");
    const bytes: [64]u8 = @splat(1);
    try check(kept.write(&bytes, .{})); // the buffer keeps the CUDA context alive
    kept.deinit();
}
