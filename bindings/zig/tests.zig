//! `zig build test`: every test of the package in one binary (installed as bin/cuabi-tests, which
//! also runs on its own: set CUABI_LIBRARY to libcuabi.so.1).
//!
//!   src/*.zig               the package's own unit tests
//!   tools/*.zig             the tool behind `zig build translate`
//!   tests/header_test.zig   the package against include/cuabi/cuabi.h and abi/layout.golden
//!   tests/library_test.zig  calls that need the library but no GPU
//!   tests/gpu_test.zig      calls that need a GPU: each skips, printing cuabi's reason, without one
//!   tests/gpu_1_1_test.zig  the same for the calls of cuabi 1.1
//!   tests/batch_test.zig    batched launches (cuabi 1.2), without and with a GPU
//!   tests/memory_test.zig   memory pools, stream-ordered and managed buffers (cuabi 1.2)
//!   tests/devices_test.zig  several GPUs and tensor maps (cuabi 1.2), without and with GPUs
//!   tests/compile_batch_test.zig  compile batches (cuabi 1.2): results, progress, cancel
//!   tests/conditional_test.zig  conditional graph nodes (cuabi 1.2), without and with a GPU
//!   tests/link_test.zig     linking with nvJitLink (cuabi 1.2), without a GPU
//!   tests/docs_test.zig     the README against the example the build compiles

comptime {
    _ = @import("src/root.zig");
    _ = @import("tools/stamp_translation.zig");
    _ = @import("tests/header_test.zig");
    _ = @import("tests/library_test.zig");
    _ = @import("tests/gpu_test.zig");
    _ = @import("tests/gpu_1_1_test.zig");
    _ = @import("tests/batch_test.zig");
    _ = @import("tests/memory_test.zig");
    _ = @import("tests/devices_test.zig");
    _ = @import("tests/compile_batch_test.zig");
    _ = @import("tests/conditional_test.zig");
    _ = @import("tests/link_test.zig");
    _ = @import("tests/docs_test.zig");
}
