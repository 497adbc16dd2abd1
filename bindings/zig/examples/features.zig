const std = @import("std");
const cuabi = @import("cuabi");

const source =
    \\__constant__ float factor;
    \\extern "C" __global__ void scale(const float* x, float* y, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) y[i] = factor * x[i];
    \\}
    \\
;

pub fn main(init: std.process.Init) !void {
    run(init.gpa) catch |err| {
        std.debug.print("{s}: {f}\n", .{ @errorName(err), cuabi.lastError() });
        return err;
    };
}

fn run(gpa: std.mem.Allocator) !void {
    const n: u32 = 1 << 20;
    var lib = try cuabi.Library.open(.{});
    defer lib.close();
    // Any CUdevice_attribute, without a context (@fromBackingInt(number) for unnamed ones).
    const sms = try lib.deviceAttribute(0, .multiprocessor_count);
    const context = try lib.createContext(.{});
    defer context.deinit();
    const module = try context.compile(source, .{});
    defer module.deinit();
    const scale = try module.kernel("scale");
    defer scale.deinit();
    try scale.setAttribute(.{ .cache_config = .l1 }); // a union tagged by the attribute

    // A __constant__ (or __device__) variable is a buffer covering exactly its bytes.
    const factor = try module.global("factor");
    defer factor.deinit();
    try factor.write(&[_]f32{3}, .{});

    // Page-locked host memory: transfers on a stream return at once and overlap with kernels.
    const host = try context.allocHostMemory(n * @sizeOf(f32), .{});
    defer host.deinit();
    const values = host.slice(f32);
    for (values, 0..) |*v, i| v.* = @floatFromInt(i);

    const stream = try context.createStream(.{});
    defer stream.deinit();
    const x = try context.createBuffer(n * @sizeOf(f32), .{});
    defer x.deinit();
    const y = try context.createBuffer(n * @sizeOf(f32), .{});
    defer y.deinit();

    // A graph of three nodes: copy in, scale (at a priority of its own), copy out.
    try stream.beginCapture(.thread_local);
    try x.write(values, .{ .stream = stream });
    const config: cuabi.LaunchConfig = .{ .grid = .{ n / 256, 1, 1 }, .block = .{ 256, 1, 1 }, .stream = stream, .priority = -1 };
    try scale.launch(config, .{ try x.devicePtr(), try y.devicePtr(), n });
    try y.read(values, .{ .stream = stream });
    const graph = try stream.endCapture(.{});
    defer graph.deinit();

    // The caller's memory, pinned in place (it must outlive the handle), as node 0's new source.
    const ones = try gpa.alloc(f32, n);
    defer gpa.free(ones);
    @memset(ones, 1);
    const pinned_ones = try context.registerHostMemory(ones, .{});
    defer pinned_ones.deinit();
    try graph.updateMemcpy(0, .{ .dst = .{ .buffer = .{ .buffer = x } }, .src = .{ .host = std.mem.sliceAsBytes(ones) } });
    try graph.launch(stream);
    try stream.synchronize();
    std.debug.print("{d} SMs; y[1000] = {d} (expected 3)\n", .{ sms, values[1000] });

    // Replays may skip a node; the graph draws itself as Graphviz DOT text.
    try graph.setNodeEnabled(1, false);
    const dot = try graph.dot(gpa, .{});
    defer gpa.free(dot);
    std.debug.print("{s}", .{dot});
}
