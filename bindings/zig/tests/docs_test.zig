//! The README against the code it shows.

const std = @import("std");
const reference = @import("cuabi_reference");

test "the README shows examples/saxpy.zig, which the build compiles, verbatim" {
    const block = "```zig\n" ++ reference.example ++ "```\n";
    if (std.mem.find(u8, reference.readme, block) == null) {
        std.debug.print("README.md's example differs from examples/saxpy.zig. Fix: paste the file into the README.\n", .{});
        return error.StaleReadme;
    }
}
