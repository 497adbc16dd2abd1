//! What a launch through the Zig package costs compared with `cuabi_launch` called directly
//! through its function pointer, in one process, on one stream, for kernels of 0, 4 and 16
//! parameters (grid 1 x block 32); and 16 launches of the 4-parameter kernel per call,
//! `Batch.launch` against `cuabi_launch_batch` through its function pointer, per launch.
//!
//!   cuabi-bench-overhead [--reps N] [--launches N] [--batch N] [--json PATH]
//!   defaults:             40 reps,   10000 launches per rep and variant, batches of 250,
//!                         bench_zig_launch.json
//!
//! Method, as bench/bench_launch.cpp measures cuabi against the driver: host-side submission
//! cost, timed in batches smaller than the driver's launch queue with untimed stream
//! synchronizations between them; within each repetition both variants run back to back in an
//! order that alternates per repetition. The report gives each variant's median over repetitions
//! and the paired ratio -- the median over repetitions of (Kernel.launch / raw cuabi_launch of
//! the same repetition) with its interquartile range -- which cancels drift between repetitions.
//! The raw variant passes a prebuilt argument table and C config; the package builds both from
//! the Zig tuple and `LaunchConfig` on every call, which is the cost being measured.
//!
//! Without a GPU it prints cuabi's reason and exits with status 1.

const std = @import("std");
const cuabi = @import("cuabi");
const c = cuabi.c;

const Options = struct {
    reps: usize = 40,
    launches: usize = 10000,
    batch: usize = 250,
    json: []const u8 = "bench_zig_launch.json",
};

const source =
    \\extern "C" __global__ void args0() {}
    \\extern "C" __global__ void args4(float* y, const float* x, float a, int n) {
    \\    if (n < 0) y[0] = a * x[0];
    \\}
    \\extern "C" __global__ void args16(float* p0, float* p1, float* p2, float* p3, float* p4, float* p5,
    \\                                  float* p6, float* p7, int n0, int n1, int n2, int n3, int n4, int n5,
    \\                                  int n6, int n7) {
    \\    if (n0 < 0) p0[0] = (float)(n1 + n2 + n3 + n4 + n5 + n6 + n7) + p1[0] + p2[0] + p3[0] + p4[0] + p5[0] + p6[0] + p7[0];
    \\}
    \\
;

const variant_names = [_][]const u8{ "cuabi_launch (raw pointer)", "Kernel.launch (Zig tuple)" };

/// Samples of one case: nanoseconds per launch of each variant, one per repetition.
const Case = struct {
    name: []const u8,
    variants: [2][]const u8 = variant_names,
    samples: [2]std.ArrayList(f64) = .{ .empty, .empty },
};

fn fail(comptime what: []const u8) noreturn {
    std.debug.print(what ++ ": {f}\n", .{cuabi.lastError()});
    std.process.exit(1);
}

/// The raw variant: the header's function pointer, a prebuilt table and a prebuilt config.
const Raw = struct {
    function: std.meta.Child(c.PFN_cuabi_launch),
    kernel: *c.cuabi_kernel,
    config: c.cuabi_launch_config,
    table: []const c.cuabi_kernel_arg,

    inline fn launch(self: *const Raw) bool {
        return self.function(self.kernel, &self.config, if (self.table.len == 0) null else self.table.ptr, self.table.len) == c.CUABI_SUCCESS;
    }
};

/// Launches per call of the batch case.
const batch_size = 16;

/// The raw batch: the header's function pointer and prebuilt items.
const RawBatch = struct {
    pub const per_call = batch_size;
    function: std.meta.Child(c.PFN_cuabi_launch_batch),
    items: []const cuabi.Batch.Item,

    inline fn launch(self: *const RawBatch) bool {
        var submitted: usize = 0;
        return self.function(self.items.ptr, self.items.len, &submitted) == c.CUABI_SUCCESS;
    }
};

/// The package's batch: `Batch.launch` on the same items.
const PackageBatch = struct {
    pub const per_call = batch_size;
    lib: *const cuabi.Library,
    items: []const cuabi.Batch.Item,

    inline fn launch(self: *const PackageBatch) bool {
        cuabi.Batch.launch(self.lib, self.items, null) catch return false;
        return true;
    }
};

/// Launches one call of `variant` makes.
fn perCall(variant: anytype) usize {
    const T = @typeInfo(@TypeOf(variant)).pointer.child;
    return if (@hasDecl(T, "per_call")) T.per_call else 1;
}

/// The package variant: the kernel, a Zig launch configuration and the argument tuple.
fn Package(comptime Args: type) type {
    return struct {
        kernel: cuabi.Kernel,
        config: cuabi.LaunchConfig,
        args: Args,

        inline fn launch(self: *const @This()) bool {
            self.kernel.launch(self.config, self.args) catch return false;
            return true;
        }
    };
}

/// Nanoseconds per launch: `options.launches` launches in timed batches, synchronizing the stream
/// between batches outside the timing.
fn perLaunchNs(io: std.Io, stream: cuabi.Stream, all: Options, variant: anytype) f64 {
    // A call of several launches counts as that many, in as many launches between syncs.
    var options = all;
    options.launches = @max(1, all.launches / perCall(variant));
    options.batch = @max(1, all.batch / perCall(variant));
    var total: i96 = 0;
    var done: usize = 0;
    while (done < options.launches) {
        const count = @min(options.batch, options.launches - done);
        const start = std.Io.Timestamp.now(io, .awake);
        for (0..count) |_| {
            if (!variant.launch()) fail("launch");
        }
        total += start.durationTo(std.Io.Timestamp.now(io, .awake)).nanoseconds;
        stream.synchronize() catch fail("stream.synchronize");
        done += count;
    }
    return @as(f64, @floatFromInt(total)) / @as(f64, @floatFromInt(options.launches * perCall(variant)));
}

/// Runs one case: warm-up, then `reps` repetitions of both variants, alternating which goes first.
fn measure(io: std.Io, gpa: std.mem.Allocator, stream: cuabi.Stream, options: Options, case: *Case, raw: anytype, package: anytype) !void {
    var warm = options;
    warm.launches = options.batch;
    _ = perLaunchNs(io, stream, warm, raw);
    _ = perLaunchNs(io, stream, warm, package);
    for (0..options.reps) |rep| {
        for (0..2) |i| {
            const v = (i + rep) % 2;
            const ns = if (v == 0) perLaunchNs(io, stream, options, raw) else perLaunchNs(io, stream, options, package);
            try case.samples[v].append(gpa, ns);
        }
    }
}

/// The q-quantile by linear interpolation between order statistics (sorts `values`).
fn quantile(values: []f64, q: f64) f64 {
    if (values.len == 0) return 0;
    std.mem.sort(f64, values, {}, std.sort.asc(f64));
    const position = q * @as(f64, @floatFromInt(values.len - 1));
    const below: usize = @intFromFloat(position);
    if (below + 1 >= values.len) return values[values.len - 1];
    const fraction = position - @as(f64, @floatFromInt(below));
    return values[below] + fraction * (values[below + 1] - values[below]);
}

const Summary = struct { median: [2]f64, ratio_median: f64, ratio_q1: f64, ratio_q3: f64 };

fn summarize(gpa: std.mem.Allocator, case: *const Case) !Summary {
    var out: Summary = undefined;
    for (0..2) |v| {
        const copy = try gpa.dupe(f64, case.samples[v].items);
        defer gpa.free(copy);
        out.median[v] = quantile(copy, 0.5);
    }
    const ratios = try gpa.alloc(f64, case.samples[0].items.len);
    defer gpa.free(ratios);
    for (ratios, case.samples[0].items, case.samples[1].items) |*r, base, zig| r.* = zig / base;
    out.ratio_q1 = quantile(ratios, 0.25);
    out.ratio_median = quantile(ratios, 0.5);
    out.ratio_q3 = quantile(ratios, 0.75);
    return out;
}

fn parse(args: []const [:0]const u8) Options {
    var options: Options = .{};
    var i: usize = 1;
    while (i < args.len) : (i += 1) {
        const flag = args[i];
        if (i + 1 >= args.len) usage();
        i += 1;
        const value = args[i];
        if (std.mem.eql(u8, flag, "--json")) {
            options.json = value;
            continue;
        }
        const number = std.fmt.parseInt(usize, value, 10) catch usage();
        if (number == 0) usage();
        if (std.mem.eql(u8, flag, "--reps")) options.reps = number else if (std.mem.eql(u8, flag, "--launches")) options.launches = number else if (std.mem.eql(u8, flag, "--batch")) options.batch = number else usage();
    }
    return options;
}

fn usage() noreturn {
    std.debug.print("usage: cuabi-bench-overhead [--reps N] [--launches N] [--batch N] [--json PATH]\n", .{});
    std.process.exit(2);
}

pub fn main(init: std.process.Init) !void {
    const gpa = init.gpa;
    const io = init.io;
    const options = parse(try init.minimal.args.toSlice(init.arena.allocator()));

    var lib = cuabi.Library.open(.{}) catch fail("cuabi.Library.open");
    defer lib.close();
    const context = lib.createContext(.{}) catch fail("no GPU: createContext");
    defer context.deinit();
    const info = context.deviceInfo() catch fail("context.deviceInfo");
    const stream = context.createStream(.{}) catch fail("context.createStream");
    defer stream.deinit();
    const scratch = context.createBuffer(256, .{}) catch fail("context.createBuffer");
    defer scratch.deinit();
    const p = scratch.devicePtr() catch fail("buffer.devicePtr");
    const module = context.compile(source, .{}) catch fail("context.compile");
    defer module.deinit();

    const config: cuabi.LaunchConfig = .{ .block = .{ 32, 1, 1 }, .stream = stream };
    const raw_launch = lib.dispatch.cuabi_launch orelse fail("cuabi_launch");
    // Run-time values, as a program's arguments are (a comptime-known one would be a comptime
    // field of the tuple).
    var one: i32 = 1;
    var a: f32 = 1;
    _ = .{ &one, &a };
    const address = p.address();

    var cases = [_]Case{ .{ .name = "launch, 0 args" }, .{ .name = "launch, 4 args" }, .{ .name = "launch, 16 args" }, .{ .name = "batch of 16, 4 args", .variants = .{ "cuabi_launch_batch (raw)", "Batch.launch" } } };
    defer for (&cases) |*case| for (&case.samples) |*s| s.deinit(gpa);

    const args0 = .{};
    const args4 = .{ p, p, a, one };
    const args16 = .{ p, p, p, p, p, p, p, p, one, one, one, one, one, one, one, one };
    const table4 = [_]c.cuabi_kernel_arg{ .{ .value = &address, .size = 8 }, .{ .value = &address, .size = 8 }, .{ .value = &a, .size = 4 }, .{ .value = &one, .size = 4 } };
    var table16: [16]c.cuabi_kernel_arg = undefined;
    for (&table16, 0..) |*entry, i| entry.* = if (i < 8) .{ .value = &address, .size = 8 } else .{ .value = &one, .size = 4 };

    inline for (.{ .{ "args0", args0, &[_]c.cuabi_kernel_arg{} }, .{ "args4", args4, &table4 }, .{ "args16", args16, &table16 } }, 0..) |entry, i| {
        const kernel = module.kernel(entry[0]) catch fail("module.kernel");
        defer kernel.deinit();
        const raw: Raw = .{ .function = raw_launch, .kernel = kernel.handle, .config = config.toC(), .table = entry[2] };
        const package: Package(@TypeOf(entry[1])) = .{ .kernel = kernel, .config = config, .args = entry[1] };
        try measure(io, gpa, stream, options, &cases[i], &raw, &package);
    }
    {
        const kernel = module.kernel("args4") catch fail("module.kernel");
        defer kernel.deinit();
        const raw_config = config.toC();
        var packed_buffer: [64]u8 = undefined;
        const packed_args = kernel.pack(&packed_buffer, args4) catch fail("kernel.pack");
        var items: [batch_size]cuabi.Batch.Item = undefined;
        for (&items) |*item| item.* = cuabi.Batch.item(kernel, &raw_config, packed_args);
        const raw: RawBatch = .{ .function = lib.dispatch.cuabi_launch_batch orelse fail("cuabi_launch_batch"), .items = &items };
        const package: PackageBatch = .{ .lib = &lib, .items = &items };
        try measure(io, gpa, stream, options, &cases[3], &raw, &package);
    }

    var buffer: [4096]u8 = undefined;
    var stdout = std.Io.File.stdout().writer(io, &buffer);
    const out = &stdout.interface;
    try out.print("device: {s}\nmethod: {d} reps x {d} launches per variant, timed in batches of {d} with untimed stream syncs between; grid 1 x block 32; median per launch; paired ratio = median over reps of Kernel.launch / cuabi_launch of the same rep\n\n", .{ std.mem.sliceTo(&info.name, 0), options.reps, options.launches, options.batch });
    try out.print("{s: <18} {s: <28} {s: >10}  {s}\n", .{ "case", "variant", "median ns", "paired ratio [IQR]" });
    var json: std.Io.Writer.Allocating = .init(gpa);
    defer json.deinit();
    const j = &json.writer;
    try j.print("{{\n  \"benchmark\": \"zig_launch_overhead\",\n  \"device\": \"{s}\",\n  \"reps\": {d},\n  \"launches\": {d},\n  \"batch\": {d},\n  \"results\": [", .{ std.mem.sliceTo(&info.name, 0), options.reps, options.launches, options.batch });
    for (&cases, 0..) |*case, i| {
        const summary = try summarize(gpa, case);
        try out.print("{s: <18} {s: <28} {d: >10.1}\n", .{ case.name, case.variants[0], summary.median[0] });
        try out.print("{s: <18} {s: <28} {d: >10.1}  {d:.3} [{d:.3}, {d:.3}]\n", .{ "", case.variants[1], summary.median[1], summary.ratio_median, summary.ratio_q1, summary.ratio_q3 });
        try j.print("{s}\n    {{\"case\": \"{s}\", \"raw_median_ns\": {d:.2}, \"zig_median_ns\": {d:.2}, \"paired_ratio_median\": {d:.4}, \"paired_ratio_q1\": {d:.4}, \"paired_ratio_q3\": {d:.4}}}", .{ if (i == 0) "" else ",", case.name, summary.median[0], summary.median[1], summary.ratio_median, summary.ratio_q1, summary.ratio_q3 });
    }
    try j.writeAll("\n  ]\n}\n");
    std.Io.Dir.cwd().writeFile(io, .{ .sub_path = options.json, .data = json.written() }) catch |err| {
        std.debug.print("could not write {s}: error.{s}\n", .{ options.json, @errorName(err) });
    };
    try out.print("\nresults: {s}\n", .{options.json});
    try out.flush();
}
