//! Linking with nvJitLink (cuabi 1.2), without a GPU: two LTO-IR modules linked into a CUBIN whose
//! kernels are listed, one of them also as bytes; an undefined symbol; checked inputs.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");

const testing = std.testing;
const check = support.check;

const kernel_source =
    \\extern "C" __device__ float twice(float x);
    \\extern "C" __global__ void apply_twice(float* data, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) data[i] = twice(data[i]);
    \\}
    \\
;
const device_source = "extern \"C\" __device__ float twice(float x) { return 2.0f * x; }\n";

fn ltoIr(lib: *const cuabi.Library, source: [:0]const u8) !cuabi.Module {
    const module = try check(lib.compileOffline(source, .{ .target = "sm_90", .flags = .{ .lto_ir = true, .no_cache = true } }));
    try testing.expectEqual(cuabi.ImageKind.ltoir, (try check(module.info())).image_kind);
    return module;
}

const lto: cuabi.LinkOptions = .{ .target = "sm_90", .flags = .{ .lto = true, .no_cache = true } };

test "two LTO-IR modules link into a CUBIN whose kernels are listed" {
    const lib = try support.library();
    const kernel = try ltoIr(lib, kernel_source);
    defer kernel.deinit();
    const device = try ltoIr(lib, device_source);
    defer device.deinit();
    const linked = try check(cuabi.Module.linkOffline(lib, testing.allocator, &.{ .{ .module = kernel }, .{ .module = device } }, lto));
    defer linked.deinit();
    try testing.expectEqual(cuabi.ImageKind.cubin, (try check(linked.info())).image_kind);
    const names = try check(linked.kernelNames(testing.allocator));
    defer testing.allocator.free(names);
    try testing.expectEqualStrings("apply_twice\n", names);
}

test "bytes with a name and link options reach nvJitLink" {
    const lib = try support.library();
    const kernel = try ltoIr(lib, kernel_source);
    defer kernel.deinit();
    // A variable of a name no run has used: on a machine with a driver, nvJitLink serves a link it
    // made before from the driver's JIT cache (CUDA_CACHE_PATH) without linking again, and writes
    // no info log then.
    var ts: std.c.timespec = undefined;
    _ = std.c.clock_gettime(.REALTIME, &ts);
    var unique_buffer: [256]u8 = undefined;
    const unique_source = try std.fmt.bufPrintSentinel(&unique_buffer, "{s}__device__ int link_nonce_{d}_{d}_{d};\n", .{ device_source, std.c.getpid(), ts.sec, ts.nsec }, 0);
    const device = try ltoIr(lib, unique_source);
    defer device.deinit();
    const bytes = try check(device.image(testing.allocator));
    defer testing.allocator.free(bytes);
    const verbose = [_][*:0]const u8{"-verbose"};
    const linked = try check(cuabi.Module.linkOffline(lib, testing.allocator, &.{
        .{ .module = kernel },
        .{ .bytes = .{ .kind = .ltoir, .data = bytes, .name = "twice.ltoir" } },
    }, .{ .target = "sm_90", .flags = .{ .lto = true, .no_cache = true, .in_process = true }, .optimization_level = 3, .max_registers = 64, .extra_options = &verbose }));
    defer linked.deinit();
    const log = try check(linked.log(testing.allocator));
    defer testing.allocator.free(log);
    try testing.expect(log.len > 0);
}

test "an undefined symbol is error.Link with nvJitLink's log" {
    const lib = try support.library();
    const kernel = try ltoIr(lib, kernel_source);
    defer kernel.deinit();
    try support.expectFailure(cuabi.Module.linkOffline(lib, testing.allocator, &.{.{ .module = kernel }}, lto), error.Link, "Fix:");
    const log = try cuabi.lastError().compileLog(testing.allocator);
    defer testing.allocator.free(log);
    try testing.expect(std.mem.find(u8, log, "twice") != null);
}

test "link inputs are checked before nvJitLink sees them" {
    const lib = try support.library();
    const garbage: [64]u8 = @splat(0x13);
    inline for (.{ .cubin, .ptx, .ltoir, .fatbin, .object, .library }) |kind| {
        try support.expectFailure(cuabi.Module.linkOffline(lib, testing.allocator, &.{.{ .bytes = .{ .kind = kind, .data = &garbage } }}, lto), error.InvalidImage, "");
    }
    try support.expectFailure(cuabi.Module.linkOffline(lib, testing.allocator, &.{.{ .file = .{ .kind = .fatbin, .path = "/nonexistent/x.fatbin" } }}, lto), error.NotFound, "/nonexistent/x.fatbin");
    try support.expectFailure(cuabi.Module.linkOffline(lib, testing.allocator, &.{}, lto), error.InvalidArgument, "no inputs");
    const kernel = try ltoIr(lib, kernel_source);
    defer kernel.deinit();
    try support.expectFailure(cuabi.Module.linkOffline(lib, testing.allocator, &.{.{ .module = kernel }}, .{ .target = "sm_90" }), error.InvalidArgument, "CUABI_LINK_LTO");
    try support.expectFailure(kernel.kernelNames(testing.allocator), error.Unsupported, "LTO-IR");
    try testing.expectEqual(@as(u32, 4096), cuabi.Module.max_link_inputs);
}

test "relocatable compiles link without LTO" {
    const lib = try support.library();
    const options: cuabi.CompileOptions = .{ .target = "sm_90", .flags = .{ .relocatable = true, .no_cache = true } };
    const kernel = try check(lib.compileOffline(kernel_source, options));
    defer kernel.deinit();
    const device = try check(lib.compileOffline(device_source, options));
    defer device.deinit();
    const linked = try check(cuabi.Module.linkOffline(lib, testing.allocator, &.{ .{ .module = kernel }, .{ .module = device } }, .{ .target = "sm_90", .flags = .{ .no_cache = true } }));
    defer linked.deinit();
    const names = try check(linked.kernelNames(testing.allocator));
    defer testing.allocator.free(names);
    try testing.expectEqualStrings("apply_twice\n", names);
}
