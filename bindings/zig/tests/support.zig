//! What the tests share: the library, opened once per process, and the GPU context that GPU tests
//! need -- or a skip that prints why there is none.

const std = @import("std");
const cuabi = @import("../src/root.zig");

var shared: ?cuabi.Library = null;
var shared_context: ?cuabi.Context = null;
var gpu_missing: ?[]const u8 = null;
var gpu_missing_buffer: [cuabi.Diagnostics.message_capacity + 256]u8 = undefined;

/// The library under test ($CUABI_LIBRARY or libcuabi.so.1), opened on first use and kept for the
/// whole run. A library that cannot be loaded fails the test, saying why.
pub fn library() !*const cuabi.Library {
    if (shared == null) {
        shared = cuabi.Library.open(.{}) catch |err| {
            std.debug.print("{f}\n", .{cuabi.lastError()});
            return err;
        };
    }
    return &shared.?;
}

/// A context on device 0 for a GPU test, shared by the run. Where cuabi finds no driver or no
/// device the test is skipped, and cuabi's reason printed; any other failure fails it.
pub fn gpu() !cuabi.Context {
    if (shared_context) |context| return context;
    if (gpu_missing) |reason| return skip(reason);
    const lib = try library();
    shared_context = lib.createContext(.{}) catch |err| switch (err) {
        error.DriverNotFound, error.NoDevice => {
            gpu_missing = try std.fmt.bufPrint(&gpu_missing_buffer, "{f}", .{cuabi.lastError()});
            return skip(gpu_missing.?);
        },
        else => {
            std.debug.print("{f}\n", .{cuabi.lastError()});
            return err;
        },
    };
    return shared_context.?;
}

/// Skips a GPU test; the first skip of the run prints cuabi's reason (on stderr, the only stream a
/// test may write to under `zig build test`, which shows it as the step's stderr: not a failure).
fn skip(reason: []const u8) error{SkipZigTest} {
    if (!skip_reported) std.debug.print("note: the GPU tests skip (not a failure), no GPU here: {s}\n", .{reason});
    skip_reported = true;
    return error.SkipZigTest;
}

var skip_reported = false;

/// Fails with cuabi's diagnostics when `result` is an error: `try check(x.call())` in tests that
/// expect success, so a failure says what cuabi said.
pub fn check(result: anytype) @TypeOf(result) {
    return result catch |err| {
        std.debug.print("unexpected {s}: {f}\n", .{ @errorName(err), cuabi.lastError() });
        return err;
    };
}

/// Expects `result` to fail with `expected`, with a message containing "Fix:" and `text`.
pub fn expectFailure(result: anytype, expected: anyerror, text: []const u8) !void {
    if (result) |_| {
        std.debug.print("expected {s}, the call succeeded\n", .{@errorName(expected)});
        return error.TestUnexpectedSuccess;
    } else |err| {
        const d = cuabi.lastError();
        if (err != expected) {
            std.debug.print("expected {s}, got {s}: {f}\n", .{ @errorName(expected), @errorName(err), d });
            return error.TestUnexpectedError;
        }
        try std.testing.expectEqual(@as(anyerror, expected), d.err);
        try std.testing.expect(std.mem.find(u8, d.message(), "Fix:") != null);
        if (std.mem.find(u8, d.message(), text) == null) {
            std.debug.print("the message has no '{s}': {s}\n", .{ text, d.message() });
            return error.TestExpectedText;
        }
    }
}

/// The source the tests compile: the conformance scenario's kernels and a fill kernel.
pub const source =
    \\extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) y[i] = a * x[i] + y[i];
    \\}
    \\template <typename T>
    \\__global__ void scale(T* data, T factor, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) data[i] *= factor;
    \\}
    \\struct Pair { float first; unsigned second; };
    \\extern "C" __global__ void store_pair(Pair pair, float* out) {
    \\    out[0] = pair.first;
    \\    out[1] = (float)pair.second;
    \\}
    \\
;

/// The name expressions compiled with `source`.
pub const name_expressions = [_][*:0]const u8{ "scale<float>", "scale<double>" };

/// A module's variables, for `Module.global`: a __device__ array, a __constant__ value and a
/// variable template reached by name expression, all read by `apply`.
pub const globals_source =
    \\__device__ float bias[4];
    \\__constant__ float factor;
    \\template <typename T> __device__ T table[2];
    \\extern "C" __global__ void apply(float* out) {
    \\    unsigned i = threadIdx.x;
    \\    if (i < 4) out[i] = bias[i] * factor + table<float>[i % 2];
    \\}
    \\
;

/// The name expressions compiled with `globals_source`.
pub const globals_name_expressions = [_][*:0]const u8{"table<float>"};
