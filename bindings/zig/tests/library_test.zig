//! The package against the real library, without a GPU: loading, errors and diagnostics, offline
//! compiles, the kernel cache, NVRTC, ranges, the graph cache, and the defaults the package
//! fills in compared with the library's own `_init` functions.

const std = @import("std");
const cuabi = @import("../src/root.zig");
const support = @import("support.zig");
const types = @import("../src/types.zig");
const c = cuabi.c;

const testing = std.testing;
const check = support.check;

test "the library loads with the ABI major and a version of at least 1.0" {
    const lib = try support.library();
    try testing.expectEqual(@as(u32, c.CUABI_ABI_VERSION), lib.abiVersion());
    try testing.expect(lib.versionNumber() >= 10000);
    try testing.expectEqual(@as(usize, 1), lib.version().major);
}

test "opening a file that is not there fails with LibraryNotFound and says where it looked" {
    try testing.expectError(error.LibraryNotFound, cuabi.Library.open(.{ .path = "/nonexistent/libcuabi.so.1" }));
    const d = cuabi.lastError();
    try testing.expectEqual(@as(anyerror, error.LibraryNotFound), d.err);
    try testing.expectEqual(@as(i32, 0), d.status);
    try testing.expect(std.mem.find(u8, d.message(), "/nonexistent/libcuabi.so.1") != null);
    try testing.expect(std.mem.find(u8, d.message(), "Fix:") != null);
}

test "opening a library that is not cuabi fails with NotCuabi" {
    try testing.expectError(error.NotCuabi, cuabi.Library.open(.{ .path = "libc.so.6" }));
    try testing.expect(std.mem.find(u8, cuabi.lastError().message(), "cuabi_get_proc_address") != null);
}

test "a library opened and closed again leaves the shared one working" {
    var lib = try check(cuabi.Library.open(.{}));
    try testing.expect(lib.versionNumber() >= 10000);
    lib.close();
    try testing.expect((try support.library()).versionNumber() >= 10000);
}

test "status names come from the library" {
    const lib = try support.library();
    try testing.expectEqualStrings("CUABI_SUCCESS", lib.statusName(0));
    try testing.expectEqualStrings("CUABI_ERROR_ARGUMENT_SIZE", lib.statusName(c.CUABI_ERROR_ARGUMENT_SIZE));
    try testing.expectEqualStrings("CUABI_UNKNOWN_STATUS", lib.statusName(9999));
}

test "a function the loaded library lacks is error.Unsupported when called, naming it" {
    const real = try support.library();
    var older = real.*;
    older.dispatch.cuabi_range_get_catalog_count = null;
    try testing.expectError(error.Unsupported, older.ranges().catalogCount());
    const d = cuabi.lastError();
    try testing.expectEqual(@as(i32, c.CUABI_ERROR_UNSUPPORTED), d.status);
    try testing.expectEqualStrings("CUABI_ERROR_UNSUPPORTED", d.status_name);
    try testing.expectEqualStrings("cuabi_range_get_catalog_count", d.function);
    try testing.expect(std.mem.find(u8, d.message(), "cuabi_range_get_catalog_count") != null);
    // The rest of the table still works.
    _ = try check(older.ranges().enabled());
}

test "a failure records status, name, function and message, and later calls leave them" {
    const lib = try support.library();
    try support.expectFailure(lib.ranges().pop(), error.Range, "");
    const d = cuabi.lastError();
    try testing.expectEqual(@as(i32, c.CUABI_ERROR_RANGE), d.status);
    try testing.expectEqualStrings("CUABI_ERROR_RANGE", d.status_name);
    try testing.expectEqualStrings("cuabi_range_pop", d.function);
    const message = try testing.allocator.dupe(u8, d.message());
    defer testing.allocator.free(message);
    try check(lib.ranges().push("kept", null)); // a success: the C library's message stays, and so does ours
    try check(lib.ranges().pop());
    try testing.expectEqualStrings(message, cuabi.lastError().message());
    var text: std.Io.Writer.Allocating = .init(testing.allocator);
    defer text.deinit();
    try text.writer.print("{f}", .{cuabi.lastError()});
    try testing.expect(std.mem.startsWith(u8, text.written(), "cuabi_range_pop: CUABI_ERROR_RANGE: "));
}

test "each thread has its own diagnostics" {
    const lib = try support.library();
    try support.expectFailure(lib.ranges().pop(), error.Range, "");
    const Worker = struct {
        fn run(l: *const cuabi.Library, out: *i32) void {
            _ = l.deviceInfo(-1) catch {};
            out.* = cuabi.lastError().status;
        }
    };
    var other: i32 = 0;
    const thread = try std.Thread.spawn(.{}, Worker.run, .{ lib, &other });
    thread.join();
    try testing.expect(other != 0 and other != c.CUABI_ERROR_RANGE);
    try testing.expectEqual(@as(i32, c.CUABI_ERROR_RANGE), cuabi.lastError().status);
}

const broken = "__global__ void broken( { }\n";

test "a compile error is error.Compile with a Fix message and the NVRTC log" {
    const lib = try support.library();
    try support.expectFailure(lib.compileOffline(broken, .{ .target = "sm_90" }), error.Compile, "");
    const d = cuabi.lastError();
    try testing.expectEqualStrings("cuabi_module_compile_offline", d.function);
    try testing.expect(d.compile_log_size > 1);
    const log = try check(d.compileLog(testing.allocator));
    defer testing.allocator.free(log);
    try testing.expectEqual(d.compile_log_size - 1, log.len);
    try testing.expect(std.mem.find(u8, log, "error") != null);
}

test "mismatched in-memory header lists are refused before cuabi is called" {
    const lib = try support.library();
    const names = [_][*:0]const u8{ "a.h", "b.h" };
    const sources = [_][*:0]const u8{"#define A 1\n"};
    try support.expectFailure(lib.compileOffline("", .{ .target = "sm_90", .header_names = &names, .header_sources = &sources }), error.InvalidArgument, "2 header names but 1 header sources");
}

test "an offline compile gives a CUBIN with lowered names, then a memory-cache hit" {
    const lib = try support.library();
    const options: cuabi.CompileOptions = .{ .target = "sm_90", .name_expressions = &support.name_expressions };
    const module = try check(lib.compileOffline(support.source, options));
    defer module.deinit();
    const info = try check(module.info());
    try testing.expectEqual(cuabi.ImageKind.cubin, info.image_kind);
    try testing.expect(info.image_size > 0);
    try testing.expect(!info.loaded);
    try testing.expectEqualStrings("sm_90", info.target());
    try testing.expectEqual(@as(usize, 32), info.cacheKey().len);
    try testing.expectEqual(@as(u32, 2), info.name_expression_count);

    const lowered = try check(module.loweredName(testing.allocator, "scale<float>"));
    defer testing.allocator.free(lowered);
    try testing.expectEqualStrings("_Z5scaleIfEvPT_S0_j", lowered);
    const lowered_double = try check(module.loweredName(testing.allocator, "scale<double>"));
    defer testing.allocator.free(lowered_double);
    try testing.expectEqualStrings("_Z5scaleIdEvPT_S0_j", lowered_double);
    try support.expectFailure(module.loweredName(testing.allocator, "scale<int>"), error.KernelNotFound, "scale<int>");

    const image = try check(module.image(testing.allocator));
    defer testing.allocator.free(image);
    try testing.expectEqual(info.image_size, image.len);
    try testing.expectEqualSlices(u8, "\x7fELF", image[0..4]);
    const log = try check(module.log(testing.allocator));
    defer testing.allocator.free(log);

    // An offline module is not loaded: no kernels from it.
    try support.expectFailure(module.kernel("saxpy"), error.InvalidArgument, "");

    const again = try check(lib.compileOffline(support.source, options));
    defer again.deinit();
    try testing.expectEqual(cuabi.ModuleOrigin.memory_cache, (try check(again.info())).origin);
}

test "no_pch leaves the cache key alone, as it leaves the image" {
    const lib = try support.library();
    const source = "#include <cuda/std/limits>\nextern \"C\" __global__ void pch_limits(int* out) { *out = cuda::std::numeric_limits<int>::max(); }\n";
    const with = try check(lib.compileOffline(source, .{ .target = "sm_90" }));
    defer with.deinit();
    const without = try check(lib.compileOffline(source, .{ .target = "sm_90", .flags = .{ .no_pch = true } }));
    defer without.deinit();
    const a = try check(with.info());
    const b = try check(without.info());
    try testing.expectEqualStrings(a.cacheKey(), b.cacheKey());
    try testing.expectEqual(cuabi.ModuleOrigin.memory_cache, b.origin);
}

/// The struct the library's `cuabi_*_init(struct_size, out)` function `name` prepares.
fn initialized(lib: *const cuabi.Library, comptime T: type, comptime name: []const u8) !T {
    var out: T = undefined;
    @memset(std.mem.asBytes(&out), 0xAA);
    try testing.expectEqual(@as(i32, c.CUABI_SUCCESS), (try lib.get(name))(@sizeOf(T), &out));
    return out;
}

test "the defaults the package fills in are the library's" {
    const lib = try support.library();
    try testing.expectEqual(try initialized(lib, c.cuabi_compile_options, "cuabi_compile_options_init"), (cuabi.CompileOptions{}).toC());
    try testing.expectEqual(try initialized(lib, c.cuabi_launch_config, "cuabi_launch_config_init"), (cuabi.LaunchConfig{}).toC());
    const context = try initialized(lib, c.cuabi_context_options, "cuabi_context_options_init");
    try testing.expectEqual((cuabi.ContextOptions{}).device, context.device_ordinal);
    const stream = try initialized(lib, c.cuabi_stream_options, "cuabi_stream_options_init");
    try testing.expectEqual(@as(u32, @bitCast((cuabi.StreamOptions{}).flags)), stream.flags);
    try testing.expectEqual((cuabi.StreamOptions{}).priority, stream.priority);
    const event = try initialized(lib, c.cuabi_event_options, "cuabi_event_options_init");
    try testing.expectEqual(@as(u32, @bitCast((cuabi.EventOptions{}).flags)), event.flags);
    const buffer = try initialized(lib, c.cuabi_buffer_options, "cuabi_buffer_options_init");
    try testing.expectEqual(@as(u32, @bitCast((cuabi.BufferOptions{}).flags)), buffer.flags);
    const graph = try initialized(lib, c.cuabi_graph_options, "cuabi_graph_options_init");
    try testing.expectEqual(@as(u32, @bitCast((cuabi.GraphOptions{}).flags)), graph.flags);
    try testing.expectEqual(try initialized(lib, c.cuabi_host_memory_options, "cuabi_host_memory_options_init"), (cuabi.HostMemoryOptions{}).toC());
}

test "output structs are prepared as the library's _init functions prepare them" {
    const lib = try support.library();
    inline for (.{
        .{ c.cuabi_device_info, "cuabi_device_info_init" },
        .{ c.cuabi_counters, "cuabi_counters_init" },
        .{ c.cuabi_module_info, "cuabi_module_info_init" },
        .{ c.cuabi_kernel_attributes, "cuabi_kernel_attributes_init" },
        .{ c.cuabi_graph_node_info, "cuabi_graph_node_info_init" },
        .{ c.cuabi_graph_update_info, "cuabi_graph_update_info_init" },
        .{ c.cuabi_graph_cache_stats, "cuabi_graph_cache_stats_init" },
        .{ c.cuabi_graph_memcpy_params, "cuabi_graph_memcpy_params_init" }, // an input, but empty: no end points
        .{ c.cuabi_cache_stats, "cuabi_cache_stats_init" },
        .{ c.cuabi_driver_jit_cache_info, "cuabi_driver_jit_cache_info_init" },
    }) |entry| {
        const from_library = try initialized(lib, entry[0], entry[1]);
        const ours = types.outputStruct(entry[0]);
        try testing.expectEqualSlices(u8, std.mem.asBytes(&from_library), std.mem.asBytes(&ours));
    }
}

test "ranges: push and pop, start here and end on another thread, the catalog" {
    const ranges = (try support.library()).ranges();
    try check(ranges.push("zig-test", null));
    try check(ranges.pop());
    try check(ranges.push("zig-test", "zig-domain"));
    try check(ranges.pop());
    try support.expectFailure(ranges.pop(), error.Range, "");
    try support.expectFailure(ranges.push("", null), error.InvalidArgument, "");

    const range = try check(ranges.start("zig-test", null));
    var status: ?cuabi.Error = null;
    const Ender = struct {
        fn run(r: cuabi.Range, out: *?cuabi.Error) void {
            r.end() catch |err| {
                out.* = err;
            };
        }
    };
    const thread = try std.Thread.spawn(.{}, Ender.run, .{ range, &status });
    thread.join();
    try testing.expectEqual(@as(?cuabi.Error, null), status);
    try support.expectFailure(range.end(), error.InvalidHandle, "");

    const count = try check(ranges.catalogCount());
    try testing.expect(count >= 13);
    for (0..count) |i| {
        const entry = try check(ranges.catalogEntry(i));
        try testing.expect(std.mem.startsWith(u8, entry.name, "cuabi."));
        try testing.expect(entry.description.len > 0);
    }
    try support.expectFailure(ranges.catalogEntry(count), error.NotFound, "");
    _ = try check(ranges.profilerAttached());
}

test "the kernel cache reports its directory, statistics and what it swept" {
    const lib = try support.library();
    const module = try check(lib.compileOffline(support.source, .{ .target = "sm_90" }));
    module.deinit();
    const cache = lib.cache();
    const directory = try check(cache.directory(testing.allocator));
    defer testing.allocator.free(directory);
    const stats = try check(cache.stats());
    try testing.expectEqual(@as(u32, @sizeOf(c.cuabi_cache_stats)), stats.raw.struct_size);
    _ = stats.nvrtcState();
    const reason = try check(cache.degradationReason(testing.allocator));
    defer testing.allocator.free(reason);
    if (stats.diskEnabled() and stats.diskWritable()) try testing.expectEqualStrings("", reason);
    const verified = try check(cache.verify());
    if (stats.diskEnabled() and stats.diskWritable()) try testing.expect(verified.checked_entries >= 1);
    const jit = try check(cache.driverJitInfo());
    _ = jit.path_source;
    const jit_path = try check(cache.driverJitPath(testing.allocator));
    defer testing.allocator.free(jit_path);
    try testing.expect(jit_path.len > 0);
}

test "cache: the remote tier's statistics, without CUABI_CACHE_REMOTE" {
    const lib = try support.library();
    const module = try check(lib.compileOffline(support.source, .{ .target = "sm_90", .defines = &.{"ZIG_REMOTE=1"} }));
    module.deinit();
    const stats = try check(lib.cache().stats());
    const remote = stats.remote();
    // The tests run without a remote: nothing configured, nothing counted, the breaker closed.
    try testing.expect(!remote.configured and !remote.breaker_open);
    try testing.expectEqual(@as(u64, 0), remote.hits + remote.misses + remote.errors + remote.publishes);
}

test "cache: a bundle exported, added as a read-only layer and imported" {
    const lib = try support.library();
    const module = try check(lib.compileOffline(support.source, .{ .target = "sm_90", .defines = &.{"ZIG_BUNDLE=1"} }));
    const info = try check(module.info());
    module.deinit();
    const cache = lib.cache();
    if (!(try check(cache.stats())).diskWritable()) return; // nothing on disk to export
    var directory = testing.tmpDir(.{});
    defer directory.cleanup();
    var root_buffer: [4096]u8 = undefined;
    const root = root_buffer[0..try directory.dir.realPath(testing.io, &root_buffer)];
    var path_buffer: [4200]u8 = undefined;
    const bundle = try std.fmt.bufPrintSentinel(&path_buffer, "{s}/kernels.cuabibundle", .{root}, 0);
    var key_buffer: [40]u8 = undefined;
    const key = try std.fmt.bufPrintSentinel(&key_buffer, "{s}", .{info.cacheKey()}, 0);
    // Only this test's entry: the layer stays for the rest of the process.
    const exported = try check(cache.exportBundle(bundle, key));
    try testing.expectEqual(@as(u64, 1), exported.entries);
    try check(cache.addReadOnlyLayer(bundle));
    try testing.expect((try check(cache.stats())).readOnly().layers >= 1);
    const imported = try check(cache.importBundle(bundle));
    try testing.expectEqual(@as(u64, 1), imported.entries);
    try testing.expectEqual(@as(u64, 0), imported.refused);
    try testing.expectError(error.InvalidArgument, cache.addReadOnlyLayer("relative/path"));
}

test "NVRTC: version, architectures, path and include directories" {
    const nvrtc = (try support.library()).nvrtc();
    const version = try check(nvrtc.version());
    try testing.expect(version.major >= 12);
    const archs = try check(nvrtc.supportedArchs(testing.allocator));
    defer testing.allocator.free(archs);
    try testing.expect(archs.len > 0);
    try testing.expect(std.sort.isSorted(i32, archs, {}, std.sort.asc(i32)));
    try testing.expect(std.mem.findScalar(i32, archs, 90) != null);
    const path = try check(nvrtc.path(testing.allocator));
    defer testing.allocator.free(path);
    try testing.expect(std.mem.find(u8, path, "nvrtc") != null);
    const include_dirs = try check(nvrtc.includeDirs(testing.allocator));
    defer testing.allocator.free(include_dirs);
}

test "nvJitLink: its file and version" {
    const nvjitlink = (try support.library()).nvJitLink();
    const path = try check(nvjitlink.path(testing.allocator));
    defer testing.allocator.free(path);
    try testing.expect(std.mem.find(u8, path, "libnvJitLink.so") != null);
    const version = try check(nvjitlink.version());
    try testing.expect(version.major >= 12);
    var suffix: [16]u8 = undefined;
    const numbered = try std.fmt.bufPrint(&suffix, ".so.{d}", .{version.major});
    try testing.expect(std.mem.endsWith(u8, path, ".so") or std.mem.endsWith(u8, path, numbered));
}

test "the graph cache's capacity classes and statistics" {
    const graph_cache = (try support.library()).graphCache();
    try testing.expectEqual(@as(u64, 1), try graph_cache.capacityClass(0));
    try testing.expectEqual(@as(u64, 1024), try graph_cache.capacityClass(1000));
    try testing.expectEqual(@as(u64, 1024), try graph_cache.capacityClass(1024));
    const before = try check(graph_cache.stats());
    try check(graph_cache.setCapacity(7));
    try testing.expectEqual(@as(u64, 7), (try check(graph_cache.stats())).capacity);
    try check(graph_cache.setCapacity(@intCast(before.capacity)));
    try check(graph_cache.clearAll());
}

test "kernel argument types are checked at compile time" {
    const Pair = extern struct { first: f32, second: u32 };
    const Auto = struct { first: f32 };
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(f32));
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(u64));
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(bool));
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(cuabi.DevicePtr));
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal(Pair));
    try testing.expectEqual(@as(?[]const u8, null), cuabi.argumentRefusal([4]f32));
    try testing.expect(cuabi.argumentRefusal(*f32) != null);
    try testing.expect(cuabi.argumentRefusal([]const f32) != null);
    try testing.expect(cuabi.argumentRefusal(comptime_float) != null);
    try testing.expect(cuabi.argumentRefusal(comptime_int) != null);
    try testing.expect(cuabi.argumentRefusal(?cuabi.DevicePtr) != null);
    try testing.expect(cuabi.argumentRefusal(Auto) != null);
    try testing.expect(cuabi.argumentRefusal(u24) != null);
    try testing.expect(cuabi.argumentRefusal(f80) != null);
    try testing.expect(cuabi.argumentRefusal(cuabi.Buffer) != null);
}

test "without a GPU, creating a context fails with the driver's reason and a fix" {
    const lib = try support.library();
    const context = lib.createContext(.{}) catch |err| {
        try testing.expect(err == error.DriverNotFound or err == error.NoDevice);
        try testing.expect(std.mem.find(u8, cuabi.lastError().message(), "Fix:") != null);
        if (err == error.DriverNotFound) {
            try support.expectFailure(lib.driverVersion(), error.DriverNotFound, "");
            try support.expectFailure(lib.deviceAttribute(0, .warp_size), error.DriverNotFound, "");
        }
        return;
    };
    // With a GPU: the device count and info agree with the context.
    defer context.deinit();
    const count = try check(lib.deviceCount());
    try testing.expect(count >= 1);
    const info = try check(lib.deviceInfo(0));
    try testing.expectEqualStrings(std.mem.sliceTo(&info.name, 0), std.mem.sliceTo(&(try check(context.deviceInfo())).name, 0));
    try support.expectFailure(lib.deviceInfo(count), error.InvalidDevice, "");
    try testing.expect(try check(lib.driverVersion()) >= 12000);
}

test "every image verification policy is one the library accepts" {
    // The library checks the policy before the ordinal and before it looks for a driver: each
    // policy passes (a code it does not know is error.InvalidArgument), so the negative ordinal is
    // what refuses the context, GPU or not.
    const lib = try support.library();
    try testing.expectEqual(cuabi.ImageVerification.default, (cuabi.ContextOptions{}).image_verification);
    for ([_]cuabi.ImageVerification{ .default, .untrusted, .all, .none }) |policy| {
        try support.expectFailure(lib.createContext(.{ .device = -1, .image_verification = policy }), error.InvalidDevice, "-1");
    }
}

test "a message longer than the diagnostics keep is cut, and says so" {
    // cuabi bounds the caller text it quotes, so the long message here is the package's own: a
    // library path longer than the diagnostics keep, quoted whole in the dlopen failure.
    const path = try testing.allocator.allocSentinel(u8, cuabi.Diagnostics.message_capacity + 100, 0);
    defer testing.allocator.free(path);
    @memset(path, 'k');
    try testing.expectError(error.LibraryNotFound, cuabi.Library.open(.{ .path = path }));
    const d = cuabi.lastError();
    try testing.expect(d.message_truncated);
    try testing.expectEqual(@as(usize, cuabi.Diagnostics.message_capacity), d.message().len);
    var text: std.Io.Writer.Allocating = .init(testing.allocator);
    defer text.deinit();
    try text.writer.print("{f}", .{d});
    try testing.expect(std.mem.endsWith(u8, text.written(), " [message cut]"));
}

test "launch configurations: a priority sets its flag; programmatic dependent launch is a flag" {
    const plain = (cuabi.LaunchConfig{}).toC();
    try testing.expectEqual(@as(u32, 0), plain.flags);
    try testing.expectEqual(@as(i32, 0), plain.priority);
    const urgent = (cuabi.LaunchConfig{ .priority = -3, .flags = .{ .synchronize = true } }).toC();
    try testing.expectEqual(c.CUABI_LAUNCH_PRIORITY | c.CUABI_LAUNCH_SYNCHRONIZE, urgent.flags);
    try testing.expectEqual(@as(i32, -3), urgent.priority);
    const by_hand = (cuabi.LaunchConfig{ .flags = .{ .priority = true } }).toC();
    try testing.expectEqual(c.CUABI_LAUNCH_PRIORITY, by_hand.flags);
    try testing.expectEqual(@as(i32, 0), by_hand.priority);
    const dependent = (cuabi.LaunchConfig{ .flags = .{ .programmatic_dependent = true } }).toC();
    try testing.expectEqual(c.CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT, dependent.flags);
    try testing.expectEqual(@as(u32, 0), dependent.reserved);
}

test "kernel attribute values become the header's (attribute, value) pairs" {
    const Pair = @TypeOf((cuabi.KernelAttributeValue{ .non_portable_cluster_size = true }).toC());
    try testing.expectEqual(Pair{ .attribute = c.CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, .value = -1 }, (cuabi.KernelAttributeValue{ .shared_memory_carveout = null }).toC());
    try testing.expectEqual(Pair{ .attribute = c.CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, .value = 100 }, (cuabi.KernelAttributeValue{ .shared_memory_carveout = 100 }).toC());
    try testing.expectEqual(Pair{ .attribute = c.CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, .value = 1 }, (cuabi.KernelAttributeValue{ .non_portable_cluster_size = true }).toC());
    try testing.expectEqual(Pair{ .attribute = c.CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, .value = 0 }, (cuabi.KernelAttributeValue{ .non_portable_cluster_size = false }).toC());
    try testing.expectEqual(Pair{ .attribute = c.CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, .value = c.CUABI_CACHE_PREFER_L1 }, (cuabi.KernelAttributeValue{ .cache_config = .l1 }).toC());
}

test "the named device attributes have cuda.h's numbers" {
    const header = readCudaHeader() catch |err| {
        std.debug.print("note: cuda.h not found ({t}); the device attribute numbers are not checked. Fix: set CUDA_HOME.\n", .{err});
        return error.SkipZigTest;
    };
    defer testing.allocator.free(header);
    @setEvalBranchQuota(100_000);
    inline for (@typeInfo(cuabi.DeviceAttribute).@"enum".field_names, @typeInfo(cuabi.DeviceAttribute).@"enum".field_values) |field, value| {
        const name = comptime types.prefixedName(cuabi.DeviceAttribute.cuda_prefix, field);
        const line = std.fmt.comptimePrint("    {s} = {d},", .{ name, value });
        if (std.mem.find(u8, header, line) == null) {
            std.debug.print("cuda.h has no line '{s}'. Fix: correct DeviceAttribute in src/types.zig.\n", .{line});
            return error.TestUnexpectedResult;
        }
    }
}

/// $CUDA_HOME/include/cuda.h, else /usr/local/cuda's (caller frees).
fn readCudaHeader() ![]u8 {
    var path_buffer: [4096]u8 = undefined;
    const home = std.mem.span(std.c.getenv("CUDA_HOME") orelse "/usr/local/cuda");
    const path = try std.fmt.bufPrint(&path_buffer, "{s}/include/cuda.h", .{home});
    return std.Io.Dir.cwd().readFileAlloc(testing.io, path, testing.allocator, .limited(16 << 20));
}

/// A handle no cuabi call ever returned (cuabi checks every handle against its table first).
fn forged(comptime T: type) *T {
    return @ptrFromInt(0x5eed_0000_0bad_f00d);
}

test "the 1.1 calls on forged handles are InvalidHandle, and nothing crashes" {
    const lib = try support.library();
    const graph: cuabi.Graph = .{ .lib = lib, .handle = forged(c.cuabi_graph) };
    try support.expectFailure(graph.setNodeEnabled(0, false), error.InvalidHandle, "");
    try support.expectFailure(graph.nodeEnabled(0), error.InvalidHandle, "");
    try support.expectFailure(graph.dot(testing.allocator, .{}), error.InvalidHandle, "");
    try support.expectFailure(graph.writeDot("/nonexistent/cuabi.dot", .{ .verbose = true }), error.InvalidHandle, "");
    var host: [16]u8 = @splat(0);
    try support.expectFailure(graph.updateMemcpy(0, .{ .dst = .{ .host = &host }, .src = .{ .buffer = .{ .buffer = .{ .lib = lib, .handle = forged(c.cuabi_buffer) } } } }), error.InvalidHandle, "");
    const kernel: cuabi.Kernel = .{ .lib = lib, .handle = forged(c.cuabi_kernel) };
    try support.expectFailure(kernel.setAttribute(.{ .cache_config = .shared }), error.InvalidHandle, "");
    try support.expectFailure(kernel.maxActiveClusters(.{ .cluster = .{ 2, 1, 1 } }), error.InvalidHandle, "");
    const module: cuabi.Module = .{ .lib = lib, .handle = forged(c.cuabi_module) };
    try support.expectFailure(module.global("value"), error.InvalidHandle, "");
    const memory: cuabi.HostMemory = .{ .lib = lib, .handle = forged(c.cuabi_host_memory), .bytes = &.{} };
    try support.expectFailure(memory.pointer(), error.InvalidHandle, "");
    try support.expectFailure(memory.size(), error.InvalidHandle, "");
    try support.expectFailure(memory.devicePtr(), error.InvalidHandle, "");
    memory.deinit(); // a destroy ignores what it does not know
}

test "memcpy updates the package can judge alone are refused before cuabi is called" {
    const lib = try support.library();
    const graph: cuabi.Graph = .{ .lib = lib, .handle = forged(c.cuabi_graph) };
    const buffer: cuabi.Buffer = .{ .lib = lib, .handle = forged(c.cuabi_buffer) };
    try support.expectFailure(graph.updateMemcpy(0, .{ .dst = .{ .buffer = .{ .buffer = buffer } }, .src = .{ .buffer = .{ .buffer = buffer, .offset = 8 } } }), error.InvalidArgument, "needs a size");
    const host: [8]u8 = @splat(0);
    try support.expectFailure(graph.updateMemcpy(0, .{ .dst = .{ .buffer = .{ .buffer = buffer } }, .src = .{ .host = &host }, .size = 9 }), error.OutOfBounds, "9 bytes; its host memory has 8");
}

test "an offline module has no globals to give" {
    const lib = try support.library();
    const module = try check(lib.compileOffline(support.globals_source, .{ .target = "sm_90" }));
    defer module.deinit();
    try support.expectFailure(module.global("bias"), error.Unsupported, "");
}

test "environmentProblems lists exactly the CUABI_ variables whose values cuabi cannot use" {
    const lib = try support.library();
    const problems = try check(lib.environmentProblems(testing.allocator));
    defer testing.allocator.free(problems);
    // Each line names a variable of this process's environment and its value as set there.
    var lines = std.mem.tokenizeScalar(u8, problems, '\n');
    while (lines.next()) |line| {
        const quote = std.mem.indexOf(u8, line, "='") orelse return error.TestUnexpectedResult;
        try testing.expect(std.mem.startsWith(u8, line, "CUABI_"));
        var name: [128]u8 = undefined;
        const variable = try std.fmt.bufPrintSentinel(&name, "{s}", .{line[0..quote]}, 0);
        const value = std.mem.span(std.c.getenv(variable) orelse return error.TestUnexpectedResult);
        try testing.expect(std.mem.startsWith(u8, line[quote + 2 ..], value));
    }
    // A known-good value is never listed; one cuabi cannot use always is (CUABI_NVTX fails no
    // call, so the run may set it: `CUABI_NVTX=maybe cuabi-tests`).
    const nvtx = std.mem.span(std.c.getenv("CUABI_NVTX") orelse "");
    const known = nvtx.len == 0 or for ([_][]const u8{ "0", "off", "false", "no", "1", "on", "true", "yes" }) |word| {
        if (std.ascii.eqlIgnoreCase(nvtx, word)) break true;
    } else false;
    try testing.expectEqual(!known, std.mem.indexOf(u8, problems, "CUABI_NVTX='") != null);
}
