//! The conformance scenario in Zig, through the cuabi package: the seventeen steps of
//! tests/conformance/README.md, printing the C reference's transcript line for line.
//!
//! stdout carries only the transcript -- "ok   <step>", "FAIL <step>: <what differed>" or
//! "skip <step>: no GPU (<STATUS_NAME>)", then "<P> passed, <F> failed, <S> skipped"; cuabi's
//! messages for failed steps go to stderr. Exit status 0 exactly when no step failed.

const std = @import("std");
const cuabi = @import("cuabi");

const n: u32 = 1 << 20; // elements per buffer
const block: u32 = 256; // threads per block for every launch
const grid: u32 = n / block; // one thread per element
const batch_launches = 4; // saxpy launches of step 14's batch
const graph_launches = 8; // saxpy launches captured in step 15
const while_iterations: u32 = 5; // runs of step 16's while body
const thread_count = 4; // threads of step 17
const thread_launches = 1000; // launches per thread in step 17

const source =
    \\extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) y[i] = a * x[i] + y[i];
    \\}
    \\template <typename T>
    \\__global__ void scale(T* data, T factor, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) data[i] *= factor;
    \\}
    \\
;
/// Step 15's kernel: counts down and clears the while node's condition at zero.
const count_down_source =
    \\extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
    \\extern "C" __global__ void count_down(unsigned* counter, cudaGraphConditionalHandle condition) {
    \\    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
    \\}
    \\
;
const broken = "__global__ void broken( { }\n";
const name_expressions = [_][*:0]const u8{ "scale<float>", "scale<double>" };
const link_kernel =
    \\extern "C" __device__ float twice(float x);
    \\extern "C" __global__ void apply_twice(float* data, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) data[i] = twice(data[i]);
    \\}
    \\
;
const link_device = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";

/// A step that did not hold; `Scenario.why` says what differed.
const StepFailed = error{StepFailed};

/// Everything the steps share: what earlier steps made and what the device should now hold.
const Scenario = struct {
    gpa: std.mem.Allocator,
    why_buffer: [512]u8 = undefined,
    why: []const u8 = "",
    lib: cuabi.Library = undefined,
    loaded: bool = false,
    offline: ?cuabi.Module = null,
    offline_again: ?cuabi.Module = null,
    /// Step 8: the status that means "no GPU here", or 0.
    gpu_missing: i32 = 0,
    /// Step 8: any other status that left the scenario without a context, or 0.
    context_failed: i32 = 0,
    context: ?cuabi.Context = null,
    stream: ?cuabi.Stream = null,
    x: ?cuabi.Buffer = null,
    y: ?cuabi.Buffer = null,
    x2: ?cuabi.Buffer = null,
    y2: ?cuabi.Buffer = null,
    xp: cuabi.DevicePtr = .null,
    yp: cuabi.DevicePtr = .null,
    x2p: cuabi.DevicePtr = .null,
    y2p: cuabi.DevicePtr = .null,
    module: ?cuabi.Module = null,
    saxpy: ?cuabi.Kernel = null,
    scale: ?cuabi.Kernel = null,
    graph: ?cuabi.Graph = null,
    count_down_module: ?cuabi.Module = null,
    count_down: ?cuabi.Kernel = null,
    counter: ?cuabi.Buffer = null,
    while_graph: ?cuabi.Graph = null,
    host: []f32 = &.{},
    expect: []f32 = &.{},

    /// Records why the step failed.
    fn fail(s: *Scenario, comptime format: []const u8, args: anytype) StepFailed {
        s.why = std.fmt.bufPrint(&s.why_buffer, format, args) catch s.why_buffer[0..];
        return error.StepFailed;
    }

    /// The value of a call that must succeed; otherwise the step fails, naming the call, with
    /// cuabi's message on stderr.
    fn ok(s: *Scenario, result: anytype, comptime call: []const u8) StepFailed!@typeInfo(@TypeOf(result)).error_union.payload {
        return result catch |err| {
            std.debug.print("{f}\n", .{cuabi.lastError()});
            return s.fail("{s} failed with error.{s}, expected success", .{ call, @errorName(err) });
        };
    }

    /// A call that must fail with `expected` and a message containing `text`.
    fn refused(s: *Scenario, result: anytype, expected: anyerror, text: []const u8, comptime what: []const u8) StepFailed!void {
        if (result) |_| {
            return s.fail("{s} succeeded, expected error.{s}", .{ what, @errorName(expected) });
        } else |err| {
            const message = cuabi.lastError().message();
            if (err != expected) {
                std.debug.print("{f}\n", .{cuabi.lastError()});
                return s.fail("{s} failed with error.{s}, expected error.{s}", .{ what, @errorName(err), @errorName(expected) });
            }
            if (std.mem.find(u8, message, text) == null) return s.fail("{s}: the message has no '{s}': {s}", .{ what, text, message });
        }
    }

    fn launchConfig(s: *const Scenario) cuabi.LaunchConfig {
        return .{ .grid = .{ grid, 1, 1 }, .block = .{ block, 1, 1 }, .stream = s.stream };
    }

    /// Destroys every handle the scenario holds, the context first; safe to repeat.
    fn deinitAll(s: *Scenario) void {
        if (s.context) |h| h.deinit();
        if (s.graph) |h| h.deinit();
        if (s.while_graph) |h| h.deinit();
        if (s.count_down) |h| h.deinit();
        if (s.count_down_module) |h| h.deinit();
        if (s.counter) |h| h.deinit();
        if (s.saxpy) |h| h.deinit();
        if (s.scale) |h| h.deinit();
        if (s.module) |h| h.deinit();
        if (s.offline) |h| h.deinit();
        if (s.offline_again) |h| h.deinit();
        if (s.stream) |h| h.deinit();
        inline for (.{ s.x, s.y, s.x2, s.y2 }) |buffer| if (buffer) |h| h.deinit();
    }
};

// ---- CPU steps ------------------------------------------------------------------------------

fn stepLoad(s: *Scenario) StepFailed!void {
    s.lib = cuabi.Library.open(.{}) catch |err| {
        std.debug.print("{f}\n", .{cuabi.lastError()});
        return s.fail("the library did not load: error.{s}", .{@errorName(err)});
    };
    s.loaded = true;
    if (s.lib.abiVersion() != 1) return s.fail("the ABI version is {d}, expected 1", .{s.lib.abiVersion()});
    if (s.lib.versionNumber() < 10000) return s.fail("the version number is {d}, expected at least 10000", .{s.lib.versionNumber()});
}

fn stepStatusNames(s: *Scenario) StepFailed!void {
    const cases = [_]struct { i32, []const u8 }{ .{ 0, "CUABI_SUCCESS" }, .{ 67, "CUABI_ERROR_ARGUMENT_SIZE" }, .{ 9999, "CUABI_UNKNOWN_STATUS" } };
    for (cases) |case| {
        const name = s.lib.statusName(case[0]);
        if (!std.mem.eql(u8, name, case[1])) return s.fail("the name of status {d} is {s}, expected {s}", .{ case[0], name, case[1] });
    }
}

fn offlineOptions() cuabi.CompileOptions {
    return .{ .target = "sm_90", .name_expressions = &name_expressions };
}

fn stepCompileError(s: *Scenario) StepFailed!void {
    try s.refused(s.lib.compileOffline(broken, .{ .target = "sm_90" }), error.Compile, "Fix:", "compiling BROKEN");
    const log = try s.ok(cuabi.lastError().compileLog(s.gpa), "reading the compile log");
    defer s.gpa.free(log);
    if (log.len == 0) return s.fail("the compile log is empty", .{});
}

fn stepOfflineTemplates(s: *Scenario) StepFailed!void {
    const lowered = [_][]const u8{ "_Z5scaleIfEvPT_S0_j", "_Z5scaleIdEvPT_S0_j" };
    s.offline = try s.ok(s.lib.compileOffline(source, offlineOptions()), "compiling SOURCE offline");
    const module = s.offline.?;
    const info = try s.ok(module.info(), "module.info()");
    if (info.image_kind != .cubin) return s.fail("image kind {d}, expected 2 (CUBIN)", .{@backingInt(info.image_kind)});
    if (info.image_size == 0) return s.fail("the image is empty", .{});
    for (name_expressions, lowered) |expression, want| {
        const name = try s.ok(module.loweredName(s.gpa, std.mem.span(expression)), "module.loweredName()");
        defer s.gpa.free(name);
        if (!std.mem.eql(u8, name, want)) return s.fail("{s} lowered to {s}, expected {s}", .{ expression, name, want });
    }
    try s.refused(module.loweredName(s.gpa, "scale<int>"), error.KernelNotFound, "", "the lowered name of scale<int>");
}

fn stepMemoryCache(s: *Scenario) StepFailed!void {
    s.offline_again = try s.ok(s.lib.compileOffline(source, offlineOptions()), "compiling SOURCE offline again");
    const info = try s.ok(s.offline_again.?.info(), "module.info()");
    if (info.origin != .memory_cache) return s.fail("origin {d}, expected 1 (memory cache)", .{@backingInt(info.origin)});
}

fn endRange(range: cuabi.Range, out: *?cuabi.Error) void {
    range.end() catch |err| {
        out.* = err;
    };
}

fn stepRanges(s: *Scenario) StepFailed!void {
    const ranges = s.lib.ranges();
    try s.ok(ranges.push("conformance", null), "ranges.push()");
    try s.ok(ranges.pop(), "ranges.pop()");
    const range = try s.ok(ranges.start("conformance", null), "ranges.start()");
    var ended: ?cuabi.Error = null;
    const thread = std.Thread.spawn(.{}, endRange, .{ range, &ended }) catch |err|
        return s.fail("could not start a thread: error.{s}", .{@errorName(err)});
    thread.join();
    if (ended) |err| return s.fail("ending the range on another thread failed with error.{s}", .{@errorName(err)});
    try s.refused(ranges.pop(), error.Range, "", "ranges.pop() with none open");
    const count = try s.ok(ranges.catalogCount(), "ranges.catalogCount()");
    if (count < 13) return s.fail("the catalog has {d} entries, expected at least 13", .{count});
    for (0..count) |i| {
        const entry = try s.ok(ranges.catalogEntry(i), "ranges.catalogEntry()");
        if (!std.mem.startsWith(u8, entry.name, "cuabi.")) return s.fail("catalog entry {d} is named {s}", .{ i, entry.name });
    }
}

fn stepLink(s: *Scenario) StepFailed!void {
    const compile: cuabi.CompileOptions = .{ .target = "sm_90", .flags = .{ .lto_ir = true } };
    const kernel = try s.ok(s.lib.compileOffline(link_kernel, compile), "compiling LINK_KERNEL");
    defer kernel.deinit();
    const device = try s.ok(s.lib.compileOffline(link_device, compile), "compiling LINK_DEVICE");
    defer device.deinit();
    const options: cuabi.LinkOptions = .{ .target = "sm_90", .flags = .{ .lto = true } };
    const linked = try s.ok(cuabi.Module.linkOffline(&s.lib, s.gpa, &.{ .{ .module = kernel }, .{ .module = device } }, options), "cuabi.Module.linkOffline()");
    defer linked.deinit();
    const info = try s.ok(linked.info(), "module.info()");
    if (info.image_kind != .cubin) return s.fail("the linked image kind is {d}, expected 2 (CUBIN)", .{@backingInt(info.image_kind)});
    const names = try s.ok(linked.kernelNames(s.gpa), "module.kernelNames()");
    defer s.gpa.free(names);
    if (!std.mem.eql(u8, names, "apply_twice\n")) return s.fail("the linked kernels are '{s}', expected 'apply_twice'", .{names});
    const alone = cuabi.Module.linkOffline(&s.lib, s.gpa, &.{.{ .module = kernel }}, options);
    if (alone) |module| module.deinit() else |_| {}
    try s.refused(alone, error.Link, "Fix:", "linking LINK_KERNEL alone");
}

fn stepContext(s: *Scenario) StepFailed!void {
    s.context = s.lib.createContext(.{}) catch |err| {
        const d = cuabi.lastError();
        if (err == error.DriverNotFound or err == error.NoDevice) {
            s.gpu_missing = d.status;
            if (std.mem.find(u8, d.message(), "Fix:") == null) return s.fail("the message has no 'Fix:': {s}", .{d.message()});
            return;
        }
        s.context_failed = d.status;
        std.debug.print("{f}\n", .{d});
        return s.fail("creating the context failed with error.{s}", .{@errorName(err)});
    };
    const info = try s.ok(s.context.?.deviceInfo(), "context.deviceInfo()");
    if (info.name[0] == 0) return s.fail("the device has no name", .{});
    if (info.compute_capability_major * 10 + info.compute_capability_minor < 75)
        return s.fail("compute capability {d}.{d}, expected at least 7.5", .{ info.compute_capability_major, info.compute_capability_minor });
}

// ---- GPU steps ------------------------------------------------------------------------------

/// Compares `got` with `want` element by element; records the first difference.
fn sameFloats(s: *Scenario, what: []const u8, got: []const f32, want: []const f32) StepFailed!void {
    for (got, want, 0..) |g, w, i| {
        if (g != w) return s.fail("{s}[{d}] is {d}, expected {d}", .{ what, i, g, w });
    }
}

/// A buffer of n floats, element i being first + step * i, and its device address.
fn makeBuffer(s: *Scenario, first: f32, step: f32) StepFailed!struct { cuabi.Buffer, cuabi.DevicePtr } {
    for (s.host, 0..) |*v, i| v.* = first + step * @as(f32, @floatFromInt(i));
    const buffer = try s.ok(s.context.?.createBuffer(n * @sizeOf(f32), .{}), "context.createBuffer()");
    errdefer buffer.deinit();
    try s.ok(buffer.write(s.host, .{}), "buffer.write()");
    return .{ buffer, try s.ok(buffer.devicePtr(), "buffer.devicePtr()") };
}

fn stepBuffers(s: *Scenario) StepFailed!void {
    s.x, s.xp = try makeBuffer(s, 0, 1);
    s.y, s.yp = try makeBuffer(s, 1, 0);
    for (s.expect, 0..) |*v, i| v.* = @floatFromInt(i);
    try s.ok(s.x.?.read(s.host, .{}), "x.read()");
    try sameFloats(s, "x", s.host, s.expect);
    @memset(s.expect, 1);
    try checkY(s);
}

/// y = a * x + y on the host, in f32, as the kernel computes it, `times` times.
fn saxpyOnHost(s: *Scenario, a: f32, times: usize) void {
    for (0..times) |_| {
        for (s.expect, 0..) |*y, i| y.* = a * @as(f32, @floatFromInt(i)) + y.*;
    }
}

fn checkY(s: *Scenario) StepFailed!void {
    try s.ok(s.y.?.read(s.host, .{}), "y.read()");
    try sameFloats(s, "y", s.host, s.expect);
}

fn stepLaunchTable(s: *Scenario) StepFailed!void {
    const context = s.context.?;
    s.module = try s.ok(context.compile(source, .{ .name_expressions = &name_expressions }), "context.compile()");
    s.saxpy = try s.ok(s.module.?.kernel("saxpy"), "module.kernel(\"saxpy\")");
    s.stream = try s.ok(context.createStream(.{}), "context.createStream()");
    try s.ok(s.saxpy.?.launch(s.launchConfig(), .{ @as(f32, 2), s.xp, s.yp, n }), "saxpy.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 2, 1);
    try checkY(s);
}

fn stepLaunchPacked(s: *Scenario) StepFailed!void {
    var buffer: [64]u8 = undefined;
    const packed_args = try s.ok(s.saxpy.?.pack(&buffer, .{ @as(f32, 2), s.xp, s.yp, n }), "saxpy.pack()");
    try s.ok(s.saxpy.?.launchPacked(s.launchConfig(), packed_args), "saxpy.launchPacked()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 2, 1);
    try checkY(s);
}

fn stepLaunchChecks(s: *Scenario) StepFailed!void {
    const saxpy = s.saxpy.?;
    var wide = s.launchConfig();
    wide.block = .{ 1024, 2, 1 };
    try s.refused(saxpy.launch(wide, .{ @as(f32, 2), s.xp, s.yp, n }), error.LaunchBlock, "2048", "block (1024,2,1)");
    try s.refused(saxpy.launch(s.launchConfig(), .{ @as(f64, 2), s.xp, s.yp, n }), error.ArgumentSize, "parameter 0", "8 bytes for parameter 0");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    try checkY(s);
}

fn stepTemplateKernel(s: *Scenario) StepFailed!void {
    const factor: f32 = 0.5;
    s.scale = try s.ok(s.module.?.kernel("scale<float>"), "module.kernel(\"scale<float>\")");
    try s.ok(s.scale.?.launch(s.launchConfig(), .{ s.yp, factor, n }), "scale.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    for (s.expect) |*v| v.* *= factor;
    try checkY(s);
}

fn stepLaunchBatch(s: *Scenario) StepFailed!void {
    const saxpy = s.saxpy.?;
    const lib = saxpy.lib;
    var buffer: [64]u8 = undefined;
    const packed_args = try s.ok(saxpy.pack(&buffer, .{ @as(f32, 1), s.xp, s.yp, n }), "saxpy.pack()");
    const config = s.launchConfig().toC();
    var too_large = config;
    too_large.block = .{ 1024, 2, 1 };
    var items: [batch_launches]cuabi.Batch.Item = @splat(cuabi.Batch.item(saxpy, &config, packed_args));
    try s.ok(cuabi.Batch.launch(lib, &items, null), "Batch.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 1, batch_launches);
    try checkY(s);
    // Item 1 of 3 is refused: item 0 runs, item 2 does not.
    items[1] = cuabi.Batch.item(saxpy, &too_large, packed_args);
    var refused_index: usize = 0;
    try s.refused(cuabi.Batch.launch(lib, items[0..3], &refused_index), error.LaunchBlock, "cuabi_launch_batch item 1 of 3: ", "item 1's block (1024,2,1)");
    if (refused_index != 1) return s.fail("the refused item's index is {d}, not 1", .{refused_index});
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 1, 1);
    try checkY(s);
}

/// Captures `graph_launches` saxpy launches (a = 1, x, y) into s.graph; checks its inventory.
fn captureGraph(s: *Scenario) StepFailed!void {
    const stream = s.stream.?;
    try s.ok(stream.beginCapture(.thread_local), "stream.beginCapture()");
    for (0..graph_launches) |_| {
        s.saxpy.?.launch(s.launchConfig(), .{ @as(f32, 1), s.xp, s.yp, n }) catch |err| {
            stream.abortCapture() catch {};
            return s.ok(@as(cuabi.Error!void, err), "a captured launch");
        };
    }
    s.graph = try s.ok(stream.endCapture(.{}), "stream.endCapture()");
    const graph = s.graph.?;
    const count = try s.ok(graph.nodeCount(), "graph.nodeCount()");
    if (count != graph_launches) return s.fail("the graph has {d} nodes, expected {d}", .{ count, graph_launches });
    for (0..count) |i| {
        const info = try s.ok(graph.nodeInfo(i), "graph.nodeInfo()");
        if (info.kind != .kernel) return s.fail("node {d} is of kind {d}, expected 1 (kernel)", .{ i, @backingInt(info.kind) });
    }
}

fn stepGraph(s: *Scenario) StepFailed!void {
    s.x2, s.x2p = try makeBuffer(s, 1, 0);
    s.y2, s.y2p = try makeBuffer(s, 0, 0);
    try captureGraph(s);
    const graph = s.graph.?;
    try s.ok(graph.launch(s.stream), "graph.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 1, graph_launches);
    try checkY(s);
    // The graph reaches x2 and y2 only through kernel arguments: it must be told to keep them.
    try s.ok(graph.retainBuffer(s.x2.?), "graph.retainBuffer(x2)");
    try s.ok(graph.retainBuffer(s.y2.?), "graph.retainBuffer(y2)");
    try s.ok(graph.updateKernelArgs(0, .{ @as(f32, 1), s.x2p, s.y2p, n }), "graph.updateKernelArgs()");
    try s.ok(graph.launch(s.stream), "graph.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 1, graph_launches - 1);
    try checkY(s);
    try s.ok(s.y2.?.read(s.host, .{}), "y2.read()");
    for (s.host, 0..) |v, i| {
        if (v != 1) return s.fail("y2[{d}] is {d}, expected 1", .{ i, v });
    }
}

/// Captures a while node whose body is saxpy(1, x, y) and count_down(counter, condition).
fn captureWhile(s: *Scenario, counter: cuabi.DevicePtr) StepFailed!void {
    const stream = s.stream.?;
    try s.ok(stream.beginCapture(.thread_local), "stream.beginCapture()");
    // A failing call below ends the capture itself.
    const condition = try s.ok(stream.createCondition(1, .{ .assign_default = true }), "stream.createCondition()");
    try s.ok(stream.beginConditional(condition, .@"while", 1), "stream.beginConditional()");
    try s.ok(s.saxpy.?.launch(s.launchConfig(), .{ @as(f32, 1), s.xp, s.yp, n }), "a captured saxpy");
    try s.ok(s.count_down.?.launch(.{ .stream = stream }, .{ counter, condition }), "a captured count_down");
    try s.ok(stream.endConditional(), "stream.endConditional()");
    s.while_graph = try s.ok(stream.endCapture(.{}), "stream.endCapture()");
}

fn stepConditionalGraph(s: *Scenario) StepFailed!void {
    const context = s.context.?;
    s.count_down_module = try s.ok(context.compile(count_down_source, .{}), "context.compile()");
    s.count_down = try s.ok(s.count_down_module.?.kernel("count_down"), "module.kernel()");
    s.counter = try s.ok(context.createBuffer(@sizeOf(u32), .{}), "context.createBuffer()");
    try s.ok(s.counter.?.write(&[_]u32{while_iterations}, .{}), "counter.write()");
    try captureWhile(s, try s.ok(s.counter.?.devicePtr(), "counter.devicePtr()"));
    const graph = s.while_graph.?;
    const count = try s.ok(graph.nodeCount(), "graph.nodeCount()");
    if (count != 1) return s.fail("the graph has {d} nodes, expected 1", .{count});
    const node = try s.ok(graph.nodeInfo(0), "graph.nodeInfo()");
    if (node.kind != .conditional or node.conditional_type != .@"while" or node.conditional_body_nodes != 2)
        return s.fail("node 0 is of kind {d} with {d} body nodes, expected a while node (14) with 2", .{ @backingInt(node.kind), node.conditional_body_nodes });
    try s.ok(graph.launch(s.stream), "graph.launch()");
    try s.ok(s.stream.?.synchronize(), "stream.synchronize()");
    saxpyOnHost(s, 1, while_iterations);
    try checkY(s);
    var left = [_]u32{99};
    try s.ok(s.counter.?.read(&left, .{}), "counter.read()");
    if (left[0] != 0) return s.fail("the counter is {d} after the replay, expected 0", .{left[0]});
}

/// One thread of step 17: its own stream and buffers, `thread_launches` launches. Returns why it
/// failed, or null.
const Worker = struct {
    context: cuabi.Context,
    saxpy: cuabi.Kernel,
    gpa: std.mem.Allocator,
    why_buffer: [512]u8 = undefined,
    why: ?[]const u8 = null,

    fn run(w: *Worker) void {
        w.work() catch |err| {
            std.debug.print("{f}\n", .{cuabi.lastError()});
            w.why = std.fmt.bufPrint(&w.why_buffer, "error.{s}", .{@errorName(err)}) catch "error";
        };
    }

    fn work(w: *Worker) !void {
        const stream = try w.context.createStream(.{});
        defer stream.deinit();
        const x = try w.context.createBuffer(n * @sizeOf(f32), .{});
        defer x.deinit();
        const y = try w.context.createBuffer(n * @sizeOf(f32), .{});
        defer y.deinit();
        try x.fill(@as(f32, 1), .{ .stream = stream });
        try y.fill(@as(f32, 0), .{ .stream = stream });
        const config: cuabi.LaunchConfig = .{ .grid = .{ grid, 1, 1 }, .block = .{ block, 1, 1 }, .stream = stream };
        const xp = try x.devicePtr();
        const yp = try y.devicePtr();
        for (0..thread_launches) |_| try w.saxpy.launch(config, .{ @as(f32, 1), xp, yp, n });
        try stream.synchronize();
        const host = try w.gpa.alloc(f32, n);
        defer w.gpa.free(host);
        try y.read(host, .{});
        for (host, 0..) |v, i| {
            if (v != thread_launches) {
                w.why = std.fmt.bufPrint(&w.why_buffer, "y[{d}] is {d}, expected {d}", .{ i, v, thread_launches }) catch "wrong value";
                return;
            }
        }
    }
};

fn stepThreads(s: *Scenario) StepFailed!void {
    var workers: [thread_count]Worker = undefined;
    var threads: [thread_count]std.Thread = undefined;
    for (&workers, &threads, 0..) |*worker, *thread, started| {
        worker.* = .{ .context = s.context.?, .saxpy = s.saxpy.?, .gpa = s.gpa };
        thread.* = std.Thread.spawn(.{}, Worker.run, .{worker}) catch |err| {
            for (threads[0..started]) |running| running.join();
            return s.fail("could not start thread {d}: error.{s}", .{ started, @errorName(err) });
        };
    }
    for (threads) |thread| thread.join();
    for (workers, 0..) |worker, i| {
        if (worker.why) |why| return s.fail("thread {d}: {s}", .{ i, why });
    }
}

fn stepTeardown(s: *Scenario) StepFailed!void {
    s.deinitAll();
    s.deinitAll(); // every handle a second time: harmless, a handle is never valid twice
    try s.refused(s.x.?.size(), error.InvalidHandle, "", "x.size() on a destroyed buffer");
}

// ---- the run ----------------------------------------------------------------------------------

const Step = struct {
    name: []const u8,
    run: *const fn (*Scenario) StepFailed!void,
    needs_gpu: bool,
};

const steps = [_]Step{
    .{ .name = "load", .run = stepLoad, .needs_gpu = false },
    .{ .name = "status-names", .run = stepStatusNames, .needs_gpu = false },
    .{ .name = "compile-error", .run = stepCompileError, .needs_gpu = false },
    .{ .name = "offline-templates", .run = stepOfflineTemplates, .needs_gpu = false },
    .{ .name = "memory-cache", .run = stepMemoryCache, .needs_gpu = false },
    .{ .name = "ranges", .run = stepRanges, .needs_gpu = false },
    .{ .name = "link", .run = stepLink, .needs_gpu = false },
    .{ .name = "context", .run = stepContext, .needs_gpu = false },
    .{ .name = "buffers", .run = stepBuffers, .needs_gpu = true },
    .{ .name = "launch-table", .run = stepLaunchTable, .needs_gpu = true },
    .{ .name = "launch-packed", .run = stepLaunchPacked, .needs_gpu = true },
    .{ .name = "launch-checks", .run = stepLaunchChecks, .needs_gpu = true },
    .{ .name = "template-kernel", .run = stepTemplateKernel, .needs_gpu = true },
    .{ .name = "launch-batch", .run = stepLaunchBatch, .needs_gpu = true },
    .{ .name = "graph", .run = stepGraph, .needs_gpu = true },
    .{ .name = "conditional-graph", .run = stepConditionalGraph, .needs_gpu = true },
    .{ .name = "threads", .run = stepThreads, .needs_gpu = true },
    .{ .name = "teardown", .run = stepTeardown, .needs_gpu = true },
};

pub fn main(init: std.process.Init) !u8 {
    const gpa = init.gpa;
    var s: Scenario = .{ .gpa = gpa };
    s.host = try gpa.alloc(f32, n);
    defer gpa.free(s.host);
    s.expect = try gpa.alloc(f32, n);
    defer gpa.free(s.expect);

    var buffer: [256]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(init.io, &buffer);
    const out = &stdout.interface;
    var passed: usize = 0;
    var failed: usize = 0;
    var skipped: usize = 0;
    for (steps) |step| {
        if (!s.loaded and !std.mem.eql(u8, step.name, "load")) {
            try out.print("FAIL {s}: the library did not load\n", .{step.name});
            failed += 1;
        } else if (step.needs_gpu and s.gpu_missing != 0) {
            try out.print("skip {s}: no GPU ({s})\n", .{ step.name, s.lib.statusName(s.gpu_missing) });
            skipped += 1;
        } else if (step.needs_gpu and s.context_failed != 0) {
            try out.print("FAIL {s}: no context ({s})\n", .{ step.name, s.lib.statusName(s.context_failed) });
            failed += 1;
        } else if (step.run(&s)) |_| {
            try out.print("ok   {s}\n", .{step.name});
            passed += 1;
        } else |_| {
            try out.print("FAIL {s}: {s}\n", .{ step.name, s.why });
            failed += 1;
        }
        try out.flush();
    }
    if (s.loaded) s.deinitAll();
    try out.print("{d} passed, {d} failed, {d} skipped\n", .{ passed, failed, skipped });
    try out.flush();
    return if (failed == 0) 0 else 1;
}
