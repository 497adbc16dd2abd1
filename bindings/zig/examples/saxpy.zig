const std = @import("std");
const cuabi = @import("cuabi");

const source =
    \\extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned n) {
    \\    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    \\    if (i < n) y[i] = a * x[i] + y[i];
    \\}
    \\
;

pub fn main(init: std.process.Init) !void {
    run(init.gpa) catch |err| {
        // What cuabi said, copied on this thread when the call failed: status, message, fix.
        std.debug.print("{s}: {f}\n", .{ @errorName(err), cuabi.lastError() });
        return err;
    };
}

fn run(gpa: std.mem.Allocator) !void {
    const n: u32 = 1 << 20;
    var lib = try cuabi.Library.open(.{}); // libcuabi.so.1, or $CUABI_LIBRARY
    defer lib.close();
    const context = try lib.createContext(.{}); // device 0
    defer context.deinit();
    const module = try context.compile(source, .{}); // NVRTC, through the kernel cache
    defer module.deinit();
    const saxpy = try module.kernel("saxpy");
    defer saxpy.deinit();

    const x = try gpa.alloc(f32, n);
    defer gpa.free(x);
    const y = try gpa.alloc(f32, n);
    defer gpa.free(y);
    for (x, y, 0..) |*xi, *yi, i| {
        xi.* = @floatFromInt(i);
        yi.* = 1;
    }
    const x_buffer = try context.createBuffer(n * @sizeOf(f32), .{});
    defer x_buffer.deinit();
    const y_buffer = try context.createBuffer(n * @sizeOf(f32), .{});
    defer y_buffer.deinit();
    try x_buffer.write(x, .{});
    try y_buffer.write(y, .{});

    // One value per kernel parameter: checked by the compiler (no host pointers, no untyped
    // literals) and by cuabi against the kernel's real parameters before the driver sees them.
    const a: f32 = 2;
    try saxpy.launch(.{ .grid = .{ n / 256, 1, 1 }, .block = .{ 256, 1, 1 } }, .{ a, try x_buffer.devicePtr(), try y_buffer.devicePtr(), n });

    try y_buffer.read(y, .{});
    std.debug.print("y[1000] = {d} (expected {d})\n", .{ y[1000], 2 * 1000 + 1 });
}
