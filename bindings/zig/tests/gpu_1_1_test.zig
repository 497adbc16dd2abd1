//! The calls of cuabi 1.1 on a GPU: device attributes, page-locked host memory, module globals,
//! launch priorities and programmatic dependent launches, kernel attributes and cluster
//! occupancy, memcpy node updates, nodes turned off and on, DOT dumps. Each test skips, printing
//! cuabi's reason, where there is no driver or device; with one, each runs and asserts.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");
const gpu = @import("gpu_test.zig");

const testing = std.testing;
const check = support.check;
const expectFailure = support.expectFailure;
const Fixture = gpu.Fixture;
const n = gpu.n;
const bytes = n * @sizeOf(f32);

test "device attributes agree with the device's info" {
    const context = try support.gpu();
    const lib = context.lib;
    const info = try check(context.deviceInfo());
    const device = info.ordinal;
    try testing.expectEqual(info.multiprocessor_count, try check(lib.deviceAttribute(device, .multiprocessor_count)));
    try testing.expectEqual(info.warp_size, try check(lib.deviceAttribute(device, .warp_size)));
    try testing.expectEqual(info.max_threads_per_block, try check(lib.deviceAttribute(device, .max_threads_per_block)));
    try testing.expectEqual(info.max_block_dim[0], try check(lib.deviceAttribute(device, .max_block_dim_x)));
    try testing.expectEqual(info.compute_capability_major, try check(lib.deviceAttribute(device, .compute_capability_major)));
    try testing.expectEqual(info.compute_capability_minor, try check(lib.deviceAttribute(device, .compute_capability_minor)));
    // An attribute the enumeration does not name, by its number (CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT).
    try testing.expect(try check(lib.deviceAttribute(device, @fromBackingInt(14))) > 0);
    try expectFailure(lib.deviceAttribute(device, @fromBackingInt(100_000)), error.InvalidArgument, "");
    try expectFailure(lib.deviceAttribute(try check(lib.deviceCount()), .warp_size), error.InvalidDevice, "");
}

test "page-locked host memory: allocated or registered, transfers on a stream, zero-copy" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const pinned = try check(f.context.allocHostMemory(bytes, .{}));
    defer pinned.deinit();
    try testing.expectEqual(@as(usize, bytes), pinned.bytes.len);
    try testing.expectEqual(@as(usize, bytes), try check(pinned.size()));
    try testing.expectEqual(@intFromPtr(pinned.bytes.ptr), @intFromPtr(try check(pinned.pointer())));
    const values = pinned.slice(f32);
    try testing.expectEqual(@as(usize, n), values.len);
    for (values, 0..) |*v, i| v.* = @floatFromInt(3 * i);
    try expectFailure(pinned.devicePtr(), error.Unsupported, "");

    // Both copies are enqueued; the bytes are there once the stream has reached them.
    const back = try check(f.context.allocHostMemory(bytes, .{ .flags = .{ .portable = true } }));
    defer back.deinit();
    try check(f.y.write(values, .{ .stream = f.stream }));
    try check(f.y.read(back.slice(f32), .{ .stream = f.stream }));
    try check(f.stream.synchronize());
    try testing.expectEqualSlices(f32, values, back.slice(f32));

    // The caller's memory, pinned in place: the same bytes, and still the caller's after deinit.
    const own = try testing.allocator.alloc(f32, n);
    defer testing.allocator.free(own);
    @memset(own, 0);
    const registered = try check(f.context.registerHostMemory(own, .{}));
    try testing.expectEqual(@intFromPtr(own.ptr), @intFromPtr(registered.bytes.ptr));
    try testing.expectEqual(own.len, registered.slice(f32).len);
    try check(f.y.read(registered.slice(f32), .{ .stream = f.stream }));
    try check(f.stream.synchronize());
    try testing.expectEqualSlices(f32, values, own);
    try expectFailure(f.context.registerHostMemory(own[16..32], .{}), error.InvalidArgument, "");
    registered.deinit();
    own[0] = -1;
    try testing.expectEqual(@as(f32, -1), own[0]);
    try expectFailure(f.context.registerHostMemory(own, .{ .flags = .{ .write_combined = true } }), error.InvalidArgument, "");
    try expectFailure(f.context.allocHostMemory(0, .{}), error.InvalidArgument, "");

    // Mapped into the device: saxpy reads x straight from host memory over the bus.
    const mapped = try check(f.context.allocHostMemory(bytes, .{ .flags = .{ .device_mapped = true } }));
    defer mapped.deinit();
    for (mapped.slice(f32), 0..) |*v, i| v.* = @floatFromInt(i);
    const mapped_x = try check(mapped.devicePtr());
    try testing.expect(mapped_x != .null);
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), mapped_x, f.yp, n }));
    @memcpy(f.expect, values);
    f.saxpyOnHost(2, n);
    try f.checkY();
}

test "a module's __device__ and __constant__ variables are buffers" {
    const context = try support.gpu();
    const module = try check(context.compile(support.globals_source, .{ .name_expressions = &support.globals_name_expressions }));
    const bias = try check(module.global("bias"));
    defer bias.deinit();
    const factor = try check(module.global("factor"));
    defer factor.deinit();
    const table = try check(module.global("table<float>"));
    defer table.deinit();
    const apply = try check(module.kernel("apply"));
    defer apply.deinit();
    try expectFailure(module.global("missing"), error.NotFound, "table<float>");
    module.deinit(); // the globals and the kernel keep it loaded

    try testing.expectEqual(@as(usize, 16), try check(bias.size()));
    try testing.expectEqual(@as(usize, 4), try check(factor.size()));
    try testing.expectEqual(@as(usize, 8), try check(table.size()));
    const stream = try check(context.createStream(.{}));
    defer stream.deinit();
    try check(bias.write(&[_]f32{ 1, 2, 3, 4 }, .{ .stream = stream }));
    try check(factor.write(&[_]f32{2}, .{ .stream = stream }));
    try check(table.write(&[_]f32{ 10, 20 }, .{}));
    try expectFailure(bias.write(&[_]f32{ 1, 2, 3, 4, 5 }, .{}), error.OutOfBounds, "");
    const out = try check(context.createBuffer(16, .{}));
    defer out.deinit();
    try check(apply.launch(.{ .block = .{ 4, 1, 1 }, .stream = stream }, .{try check(out.devicePtr())}));
    try check(stream.synchronize());
    var result: [4]f32 = undefined;
    try check(out.read(&result, .{}));
    try testing.expectEqualSlices(f32, &.{ 12, 24, 16, 28 }, &result); // bias * factor + table

    // A __device__ variable's address works as a kernel argument: apply writes into bias itself.
    try check(apply.launch(.{ .block = .{ 4, 1, 1 } }, .{try check(bias.devicePtr())}));
    try check(bias.read(&result, .{}));
    try testing.expectEqualSlices(f32, &.{ 12, 24, 16, 28 }, &result);
}

/// A kernel for programmatic dependent launch: it waits for the previous kernel's writes
/// (griddepcontrol.wait, what cudaGridDependencySynchronize() compiles to) before reading y.
const dependent_source =
    \\extern "C" __global__ void add_one_after(float* y, unsigned n) {
    \\#if __CUDA_ARCH__ >= 900
    \\    asm volatile("griddepcontrol.wait;" ::: "memory");
    \\#endif
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) y[i] += 1.0f;
    \\}
    \\
;

test "launches at their own priority, and programmatic dependent launches" {
    var f = try Fixture.init(0);
    defer f.deinit();
    var urgent = f.config();
    urgent.priority = -5; // clamped to the device's range
    try check(f.saxpy.launch(urgent, .{ @as(f32, 1), f.xp, f.yp, n }));
    var by_flag = f.config();
    by_flag.flags.priority = true; // priority 0
    var buffer: [64]u8 = undefined;
    try check(f.saxpy.launchPacked(by_flag, try check(f.saxpy.pack(&buffer, .{ @as(f32, 2), f.xp, f.yp, n }))));
    f.saxpyOnHost(1, n);
    f.saxpyOnHost(2, n);
    try f.checkY();

    const module = try check(f.context.compile(dependent_source, .{}));
    defer module.deinit();
    const add_one = try check(module.kernel("add_one_after"));
    defer add_one.deinit();
    var dependent = f.config();
    dependent.flags.programmatic_dependent = true;
    for (0..16) |_| {
        try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
        try check(add_one.launch(dependent, .{ f.yp, n }));
        f.saxpyOnHost(1, n);
        for (f.expect) |*y| y.* += 1;
    }
    try f.checkY();
}

test "kernel attributes, and how many clusters fit" {
    var f = try Fixture.init(0);
    defer f.deinit();
    defer f.saxpy.setAttribute(.{ .cache_config = .none }) catch {};
    defer f.saxpy.setAttribute(.{ .shared_memory_carveout = null }) catch {};
    try check(f.saxpy.setAttribute(.{ .cache_config = .shared }));
    try check(f.saxpy.setAttribute(.{ .shared_memory_carveout = 50 }));
    try expectFailure(f.saxpy.setAttribute(.{ .shared_memory_carveout = 101 }), error.InvalidArgument, "");
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    f.saxpyOnHost(1, n);
    try f.checkY();

    const pair: cuabi.LaunchConfig = .{ .block = .{ 128, 1, 1 }, .cluster = .{ 2, 1, 1 } };
    const sixteen: cuabi.LaunchConfig = .{ .block = .{ 128, 1, 1 }, .cluster = .{ 16, 1, 1 } };
    if ((try check(f.context.deviceInfo())).compute_capability_major < 9) {
        try expectFailure(f.saxpy.maxActiveClusters(pair), error.LaunchCluster, "");
        try expectFailure(f.saxpy.setAttribute(.{ .non_portable_cluster_size = true }), error.Unsupported, "");
        return;
    }
    try testing.expect(try check(f.saxpy.maxActiveClusters(pair)) >= 1);
    // 16 blocks exceed the portable limit of 8 until the kernel allows non-portable sizes.
    try expectFailure(f.saxpy.maxActiveClusters(sixteen), error.LaunchCluster, "");
    try check(f.saxpy.setAttribute(.{ .non_portable_cluster_size = true }));
    defer f.saxpy.setAttribute(.{ .non_portable_cluster_size = false }) catch {};
    try testing.expect(try check(f.saxpy.maxActiveClusters(sixteen)) >= 1);
}

test "memcpy nodes get new end points" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const ones = try check(f.context.allocHostMemory(bytes, .{}));
    defer ones.deinit();
    const twos = try check(f.context.allocHostMemory(bytes, .{}));
    defer twos.deinit();
    const result = try check(f.context.allocHostMemory(bytes, .{}));
    defer result.deinit();
    const other = try check(f.context.allocHostMemory(bytes, .{}));
    defer other.deinit();
    @memset(ones.slice(f32), 1);
    @memset(twos.slice(f32), 2);
    @memset(other.slice(f32), 0);

    try check(f.stream.beginCapture(.thread_local));
    try check(f.x.write(ones.slice(f32), .{ .stream = f.stream })); // node 0: host to device
    try check(f.y.copyFrom(0, f.x, 0, bytes, f.stream)); // node 1: device to device
    try check(f.y.read(result.slice(f32), .{ .stream = f.stream })); // node 2: device to host
    const graph = try check(f.stream.endCapture(.{}));
    defer graph.deinit();
    try testing.expectEqual(@as(usize, 3), try check(graph.nodeCount()));
    for (0..3) |i| try testing.expectEqual(cuabi.GraphNodeKind.memcpy, (try check(graph.nodeInfo(i))).kind);
    try replayExpecting(f, graph, result, 1);

    try check(graph.updateMemcpy(0, .{ .dst = .{ .buffer = .{ .buffer = f.x } }, .src = .{ .host = std.mem.sliceAsBytes(twos.slice(f32)) } }));
    try replayExpecting(f, graph, result, 2);

    // Node 1 from another buffer, node 2 into other host memory; the graph keeps x2 alive.
    const x2 = try check(f.context.createBuffer(bytes, .{}));
    try check(x2.fill(@as(f32, 3), .{}));
    try check(graph.updateMemcpy(1, .{ .dst = .{ .buffer = .{ .buffer = f.y } }, .src = .{ .buffer = .{ .buffer = x2 } }, .size = bytes }));
    x2.deinit();
    try check(graph.updateMemcpy(2, .{ .dst = .{ .host = std.mem.sliceAsBytes(other.slice(f32)) }, .src = .{ .buffer = .{ .buffer = f.y } } }));
    try replayExpecting(f, graph, other, 3);
    for (result.slice(f32)) |v| try testing.expectEqual(@as(f32, 2), v);

    const x_to_y: cuabi.Graph.MemcpyParams = .{ .dst = .{ .buffer = .{ .buffer = f.y } }, .src = .{ .buffer = .{ .buffer = f.x } }, .size = bytes };
    try expectFailure(graph.updateMemcpy(0, x_to_y), error.InvalidArgument, ""); // node 0 copies from the host
    try expectFailure(graph.updateMemcpy(3, x_to_y), error.GraphNode, "");
    var shifted = x_to_y;
    shifted.dst.buffer.offset = 4;
    try expectFailure(graph.updateMemcpy(1, shifted), error.OutOfBounds, "");
    try replayExpecting(f, graph, other, 3); // the refused updates changed nothing
}

/// Replays `graph` after zeroing `host`, then expects every element of it to be `value`.
fn replayExpecting(f: Fixture, graph: cuabi.Graph, host: cuabi.HostMemory, value: f32) !void {
    @memset(host.slice(f32), 0);
    try check(graph.launch(f.stream));
    try check(f.stream.synchronize());
    for (host.slice(f32)) |v| try testing.expectEqual(value, v);
}

/// Captures saxpy with a = 1, then with a = 2, on the fixture's stream.
fn captureTwoSaxpys(f: *Fixture) !cuabi.Graph {
    try check(f.stream.beginCapture(.thread_local));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 1), f.xp, f.yp, n }));
    try check(f.saxpy.launch(f.config(), .{ @as(f32, 2), f.xp, f.yp, n }));
    return check(f.stream.endCapture(.{}));
}

test "graph nodes turned off and on again" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const graph = try captureTwoSaxpys(&f);
    defer graph.deinit();
    try testing.expect(try check(graph.nodeEnabled(1)));
    try check(graph.setNodeEnabled(1, false));
    try testing.expect(!try check(graph.nodeEnabled(1)));
    try testing.expect(try check(graph.nodeEnabled(0)));
    try check(graph.launch(f.stream));
    f.saxpyOnHost(1, n);
    try f.checkY();

    try check(graph.setNodeEnabled(1, true));
    try testing.expect(try check(graph.nodeEnabled(1)));
    try check(graph.launch(f.stream));
    f.saxpyOnHost(1, n);
    f.saxpyOnHost(2, n);
    try f.checkY();
    try expectFailure(graph.setNodeEnabled(2, false), error.GraphNode, "");
    try expectFailure(graph.nodeEnabled(2), error.GraphNode, "");
}

test "a graph drawn as DOT text and into a file" {
    var f = try Fixture.init(0);
    defer f.deinit();
    const graph = try captureTwoSaxpys(&f);
    defer graph.deinit();
    const text = try check(graph.dot(testing.allocator, .{}));
    defer testing.allocator.free(text);
    try testing.expect(std.mem.startsWith(u8, text, "digraph"));
    try testing.expect(std.mem.find(u8, text, "saxpy") != null);
    const verbose = try check(graph.dot(testing.allocator, .{ .verbose = true }));
    defer testing.allocator.free(verbose);
    try testing.expect(verbose.len > text.len);

    var tmp = testing.tmpDir(.{});
    defer tmp.cleanup();
    var path_buffer: [256]u8 = undefined;
    const path = try std.fmt.bufPrintSentinel(&path_buffer, ".zig-cache/tmp/{s}/graph.dot", .{tmp.sub_path}, 0);
    try check(graph.writeDot(path, .{}));
    const file = try tmp.dir.readFileAlloc(testing.io, "graph.dot", testing.allocator, .limited(16 << 20));
    defer testing.allocator.free(file);
    try testing.expect(std.mem.startsWith(u8, file, "digraph"));
    try testing.expect(std.mem.find(u8, file, "saxpy") != null);
    try expectFailure(graph.writeDot("/nonexistent-cuabi-directory/graph.dot", .{}), error.Cuda, "/nonexistent-cuabi-directory/graph.dot");
}
