//! The cuabi package for `zig build`.
//!
//!   module "cuabi"             src/root.zig, for dependents: `b.dependency("cuabi", .{}).module("cuabi")`
//!   zig build                  installs bin/cuabi-tests, bin/cuabi-conformance, bin/cuabi-bench-overhead
//!   zig build test             the unit tests (the GPU ones skip, saying why, without a GPU)
//!   zig build example          runs examples/saxpy.zig, the README's example (needs a GPU)
//!   zig build features         runs examples/features.zig, the README's 1.1 example (needs a GPU)
//!   zig build conformance      runs the conformance scenario
//!   zig build bench            runs the launch-overhead benchmark (needs a GPU)
//!   zig build translate        rewrites src/c.zig from the header (builds translate-C once: minutes)
//!
//! Options: -Dlibrary=PATH sets CUABI_LIBRARY for the runs (else the environment's, else
//! libcuabi.so.1 on the library search path); -Drepository=PATH is the cuabi source tree whose
//! include/cuabi/cuabi.h, abi/layout.golden and abi/cuabi_model.json the tests compare the
//! package with and `translate` translates (default: ../.., this package's place in that tree);
//! -Dstrip leaves debug information out of the binaries; -Dbench-optimize (default fast)
//! optimizes the benchmark; -Dtest-filter=TEXT (repeatable) builds cuabi-tests with only the tests
//! whose names contain TEXT (the test binary itself takes no filter).

const std = @import("std");

/// Declares the module, the binaries and the steps above.
pub fn build(b: *std.Build) void {
    const target = b.standardTargetOptions(.{});
    const optimize = b.standardOptimizeOption(.{});
    const bench_optimize = b.option(std.lang.Optimize, "bench-optimize", "Optimization of the benchmark (default fast)") orelse .fast;
    const strip = b.option(bool, "strip", "Leave debug information out of the binaries (smaller to carry to a GPU machine)");
    const library = b.option([]const u8, "library", "libcuabi.so.1 to run the tests, conformance and benchmark with (sets CUABI_LIBRARY)");
    const test_filters = b.option([]const []const u8, "test-filter", "Build cuabi-tests with only the tests whose names contain this") orelse &.{};
    const repository = b.option(std.Build.LazyPath, "repository", "The cuabi source tree (default ../..)") orelse b.path("../..");
    const header = repository.path(b, "include/cuabi/cuabi.h");

    // The package: the committed translation of the header plus the Zig layer. std.DynLib needs
    // libc to load a glibc library. Target and optimization come from the module that imports it.
    const cuabi = b.addModule("cuabi", .{
        .root_source_file = b.path("src/root.zig"),
        .link_libc = true,
    });

    // The header and the C compiler's layout of it, as bytes, for the tests that compare the
    // package with them, and the CUDA sources the GPU tests share with the C suite (embedded, so
    // the test binary has them wherever it runs).
    const reference_files = b.addWriteFiles();
    _ = reference_files.addCopyFile(header, "cuabi.h");
    _ = reference_files.addCopyFile(repository.path(b, "abi/layout.golden"), "layout.golden");
    _ = reference_files.addCopyFile(repository.path(b, "abi/cuabi_model.json"), "cuabi_model.json");
    _ = reference_files.addCopyFile(b.path("README.md"), "README.md");
    _ = reference_files.addCopyFile(b.path("examples/saxpy.zig"), "saxpy.zig");
    _ = reference_files.addCopyFile(b.path("examples/features.zig"), "features.zig");
    _ = reference_files.addCopyFile(repository.path(b, "tests/gpu/kernels/tma_copy.cu"), "tma_copy.cu");
    const reference = b.createModule(.{
        .root_source_file = reference_files.add("reference.zig",
            \\/// include/cuabi/cuabi.h
            \\pub const header = @embedFile("cuabi.h");
            \\/// abi/layout.golden: the C compiler's sizes, offsets and constant values
            \\pub const layout = @embedFile("layout.golden");
            \\/// abi/cuabi_model.json: the ABI model read from the header
            \\pub const model = @embedFile("cuabi_model.json");
            \\/// The package's README and the examples it shows
            \\pub const readme = @embedFile("README.md");
            \\pub const examples = .{ @embedFile("saxpy.zig"), @embedFile("features.zig") };
            \\/// tests/gpu/kernels/tma_copy.cu: the tensor-map kernels the C suite and every binding compile
            \\pub const tma_copy = @embedFile("tma_copy.cu");
            \\
        ),
    });

    // Shared by the tests and `zig build translate` (a file may belong to one module only).
    const header_digest = b.createModule(.{ .root_source_file = b.path("src/header_digest.zig") });

    const tests = b.addTest(.{
        .name = "cuabi-tests",
        .filters = test_filters,
        .root_module = b.createModule(.{
            .root_source_file = b.path("tests.zig"),
            .target = target,
            .optimize = optimize,
            .strip = strip,
            .link_libc = true,
            .imports = &.{
                .{ .name = "cuabi_reference", .module = reference },
                .{ .name = "header_digest", .module = header_digest },
            },
        }),
    });
    b.installArtifact(tests);
    const run_tests = b.addRunArtifact(tests);
    const test_step = b.step("test", "Run the unit tests (GPU tests skip without a GPU); compile the example");
    test_step.dependOn(&run_tests.step);

    // The README's examples, compiled with the tests so that they stay true.
    var run_examples: [2]*std.Build.Step.Run = undefined;
    for ([_][]const u8{ "saxpy", "features" }, [_][]const u8{ "example", "features" }, &run_examples) |name, step, *run| {
        const example = b.addExecutable(.{
            .name = name,
            .root_module = b.createModule(.{
                .root_source_file = b.path(b.fmt("examples/{s}.zig", .{name})),
                .target = target,
                .optimize = optimize,
                .imports = &.{.{ .name = "cuabi", .module = cuabi }},
            }),
        });
        test_step.dependOn(&example.step);
        run.* = b.addRunArtifact(example);
        b.step(step, b.fmt("Run examples/{s}.zig (needs a GPU)", .{name})).dependOn(&run.*.step);
    }

    const conformance = b.addExecutable(.{
        .name = "cuabi-conformance",
        .root_module = b.createModule(.{
            .root_source_file = b.path("conformance/main.zig"),
            .target = target,
            .optimize = optimize,
            .strip = strip,
            .link_libc = true,
            .imports = &.{.{ .name = "cuabi", .module = cuabi }},
        }),
    });
    b.installArtifact(conformance);
    const run_conformance = b.addRunArtifact(conformance);
    b.step("conformance", "Run the conformance scenario").dependOn(&run_conformance.step);

    const bench = b.addExecutable(.{
        .name = "cuabi-bench-overhead",
        .root_module = b.createModule(.{
            .root_source_file = b.path("bench/overhead.zig"),
            .target = target,
            .optimize = bench_optimize,
            .strip = strip,
            .link_libc = true,
            .imports = &.{.{ .name = "cuabi", .module = cuabi }},
        }),
    });
    b.installArtifact(bench);
    const run_bench = b.addRunArtifact(bench);
    run_bench.addPassthruArgs();
    b.step("bench", "Run the launch-overhead benchmark (needs a GPU)").dependOn(&run_bench.step);

    if (library) |path| {
        for ([_]*std.Build.Step.Run{ run_tests, run_conformance, run_bench, run_examples[0], run_examples[1] }) |run| run.setEnvironmentVariable("CUABI_LIBRARY", path);
    }

    addTranslateStep(b, header, header_digest);
}

/// `zig build translate`: translate-C of the header, kept to its own declarations and stamped
/// with its digest (tools/stamp_translation.zig), written to src/c.zig. CUABI_NO_PROTOTYPES leaves
/// out the function prototypes, as the header offers to programs that load the library at run
/// time: only the PFN_cuabi_* types remain, so nothing can link against a symbol by mistake. The
/// header needs no C library: <stddef.h> and <stdint.h> come with translate-C.
fn addTranslateStep(b: *std.Build, header: std.Build.LazyPath, header_digest: *std.Build.Module) void {
    const translation = b.addTranslateC(.{
        .root_source_file = header,
        .target = b.graph.host,
        .optimize = .debug,
        .link_libc = false,
    });
    translation.defineCMacro("CUABI_NO_PROTOTYPES", null);
    const stamp = b.addExecutable(.{
        .name = "stamp_translation",
        .root_module = b.createModule(.{
            .root_source_file = b.path("tools/stamp_translation.zig"),
            .target = b.graph.host,
            .imports = &.{.{ .name = "header_digest", .module = header_digest }},
        }),
    });
    const run_stamp = b.addRunArtifact(stamp);
    run_stamp.addFileArg(header);
    run_stamp.addFileArg(translation.getOutput());
    const stamped = run_stamp.addOutputFileArg("c.zig");
    const update = b.addUpdateSourceFiles();
    update.addCopyFileToSource(stamped, "src/c.zig");
    b.step("translate", "Rewrite src/c.zig from the header with translate-C").dependOn(&update.step);
}
