//! Compile batches (cuabi 1.2) without a GPU, offline for sm_90 with real NVRTC: each request's
//! own module or error, and a cancel from another thread that ends a running heavy compile.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");

const testing = std.testing;
const check = support.check;

const good = "extern \"C\" __global__ void good(int* p) { p[0] = VALUE; }\n";
const broken = "extern \"C\" __global__ void broken(int* p) { p[0] = not_declared_zig; }\n";
const heavy =
    \\template <int D> struct Tree {
    \\    __device__ __forceinline__ static float run(float x, const float* p) {
    \\        return Tree<D - 1>::run(x * 1.0001f + p[D], p) * Tree<D - 1>::run(x - p[D + 1], p);
    \\    }
    \\};
    \\template <> struct Tree<0> {
    \\    __device__ __forceinline__ static float run(float x, const float* p) { return x + p[0]; }
    \\};
    \\extern "C" __global__ void heavy(float* p) { p[threadIdx.x] = Tree<12>::run(p[threadIdx.x], p); }
    \\
;

fn nowNs() i128 {
    var ts: std.c.timespec = undefined;
    _ = std.c.clock_gettime(.MONOTONIC, &ts);
    return @as(i128, ts.sec) * std.time.ns_per_s + ts.nsec;
}

fn sleepMs(ms: u32) void {
    var ts: std.c.timespec = .{ .sec = @intCast(ms / 1000), .nsec = @intCast((ms % 1000) * std.time.ns_per_ms) };
    _ = std.c.nanosleep(&ts, null);
}

fn salted(buffer: []u8, define: [*:0]const u8, defines: *[1][*:0]const u8) cuabi.CompileOptions {
    const salt = std.fmt.bufPrint(buffer, "{d}:{d}", .{ std.c.getpid(), nowNs() }) catch unreachable;
    defines.* = .{define};
    return .{ .target = "sm_90", .defines = defines, .salt = salt };
}

test "a compile batch returns each request's own module or error" {
    const lib = try support.library();
    var salt: [64]u8 = undefined;
    var defines: [1][*:0]const u8 = undefined;
    const options = salted(&salt, "VALUE=1", &defines);
    const requests = [_]cuabi.CompileBatch.Request{ .{ .source = good, .options = options }, .{ .source = broken, .options = options } };
    const results = try check(cuabi.CompileBatch.compileAll(lib, testing.allocator, &requests));
    defer testing.allocator.free(results);
    const module = try check(results[0]);
    defer module.deinit();
    try testing.expectError(error.Compile, results[1]);
    try testing.expectEqual(@as(usize, c_max), cuabi.CompileBatch.max_requests);
}

const c_max = cuabi.c.CUABI_COMPILE_BATCH_MAX_REQUESTS;

test "a cancel from another thread ends a running heavy compile" {
    const lib = try support.library();
    var salt: [64]u8 = undefined;
    var defines: [1][*:0]const u8 = undefined;
    const options = salted(&salt, "VALUE=2", &defines);
    // NVRTC's own cache (12.9+) does not see cuabi's salt: a comment of its own makes NVRTC run.
    var source_buffer: [heavy.len + 80]u8 = undefined;
    const source = std.fmt.bufPrintSentinel(&source_buffer, "{s}// {s}\n", .{ heavy, options.salt }, 0) catch unreachable;
    const requests = [_]cuabi.CompileBatch.Request{.{ .source = source, .options = options }};
    const batch = try check(cuabi.CompileBatch.start(lib, testing.allocator, &requests, 0));
    defer batch.deinit();
    var waited: u32 = 0;
    while ((try batch.state(0)) == .queued and waited < 10_000) : (waited += 1) sleepMs(1);
    sleepMs(100);
    try testing.expect((try batch.state(0)) == .compiling);
    const Waiter = struct {
        fn run(b: cuabi.CompileBatch, result: *cuabi.Error!void, at: *i128) void {
            if (b.module(0)) |m| {
                m.deinit();
                result.* = {};
            } else |err| result.* = err;
            at.* = nowNs();
        }
    };
    var result: cuabi.Error!void = {};
    var returned: i128 = 0;
    const thread = try std.Thread.spawn(.{}, Waiter.run, .{ batch, &result, &returned });
    sleepMs(50);
    const cancelled = nowNs();
    try check(batch.cancel());
    thread.join();
    try testing.expectError(error.Cancelled, result);
    try testing.expect(returned - cancelled < 250 * std.time.ns_per_ms);
    const state = try batch.state(0);
    try testing.expectError(error.Cancelled, state.done);
}
