//! The README against the code it shows.

const std = @import("std");
const reference = @import("cuabi_reference");

test "the README shows examples/saxpy.zig and examples/features.zig, which the build compiles, verbatim" {
    inline for (reference.examples, .{ "saxpy", "features" }) |example, name| {
        const block = "```zig\n" ++ example ++ "```\n";
        if (std.mem.find(u8, reference.readme, block) == null) {
            std.debug.print("README.md's example differs from examples/{s}.zig. Fix: paste the file into the README.\n", .{name});
            return error.StaleReadme;
        }
    }
}
