//! The kernel cache (`Library.cache()`): compiled kernels cached per process in memory and, across
//! processes, on disk ($CUABI_CACHE_DIR, else $XDG_CACHE_HOME/cuabi, else ~/.cache/cuabi). It
//! never fails a compile: a refused, read-only or full directory leaves it working from memory,
//! and `degradationReason` says why. Thread-safe, also while other processes compile.

const std = @import("std");
const c = @import("c.zig");
const errors = @import("errors.zig");
const types = @import("types.zig");
const text = @import("text.zig");
const Library = @import("Library.zig");

const Cache = @This();
const Error = errors.Error;
const Allocator = std.mem.Allocator;

/// The library whose cache this is.
lib: *const Library,

/// What `prune`, `clear` and `verify` did.
pub const Sweep = struct {
    /// Entries read and checked (`verify` only).
    checked_entries: u64 = 0,
    /// Entries removed.
    removed_entries: u64 = 0,
    /// Bytes removed (`prune` and `clear` only).
    removed_bytes: u64 = 0,
};

/// The cache's statistics; lists the directory to count its entries.
pub fn stats(self: Cache) Error!types.CacheStats {
    var raw = types.outputStruct(c.cuabi_cache_stats);
    try self.lib.call("cuabi_cache_get_stats", .{&raw});
    return .{ .raw = raw };
}

/// The cache directory (absolute; caller frees); "" when no location could be found.
pub fn directory(self: Cache, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_cache_get_directory", .{}, allocator);
}

/// Why the disk cache is off, refused or not taking writes, with a "Fix: ..."; "" while it works.
pub fn degradationReason(self: Cache, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_cache_get_degradation_reason", .{}, allocator);
}

/// Removes least recently used disk entries until the directory holds at most `max_bytes`.
pub fn prune(self: Cache, max_bytes: u64) Error!Sweep {
    var out: Sweep = .{};
    try self.lib.call("cuabi_cache_prune", .{ max_bytes, &out.removed_entries, &out.removed_bytes });
    return out;
}

/// Empties this process's memory cache and removes every disk entry (of every process).
pub fn clear(self: Cache) Error!Sweep {
    var out: Sweep = .{};
    try self.lib.call("cuabi_cache_clear", .{ &out.removed_entries, &out.removed_bytes });
    return out;
}

/// Checks every disk entry and removes the bad ones.
pub fn verify(self: Cache) Error!Sweep {
    var out: Sweep = .{};
    try self.lib.call("cuabi_cache_verify", .{ &out.checked_entries, &out.removed_entries });
    return out;
}

/// Adds a read-only layer searched after the disk cache: the absolute path of a cache directory or
/// of a bundle written by `exportBundle`. Its entries are untrusted (verified before loading).
pub fn addReadOnlyLayer(self: Cache, path: [:0]const u8) Error!void {
    return self.lib.call("cuabi_cache_add_readonly_layer", .{path.ptr});
}

/// What `exportBundle` wrote or `importBundle` added.
pub const Transfer = struct {
    /// Entries written to the bundle, or added to the disk cache.
    entries: u64 = 0,
    /// The bundle's size in bytes (`exportBundle`).
    bytes: u64 = 0,
    /// Damaged entries refused (`importBundle`).
    refused: u64 = 0,
};

/// Writes the disk cache's entries to one bundle file: all when `match` is null, else those whose
/// target ("sm_90") or key (32 hex digits) matches the shell pattern.
pub fn exportBundle(self: Cache, path: [:0]const u8, match: ?[:0]const u8) Error!Transfer {
    var out: Transfer = .{};
    const pattern: ?[*:0]const u8 = if (match) |pattern_text| pattern_text.ptr else null;
    try self.lib.call("cuabi_cache_export", .{ path.ptr, pattern, &out.entries, &out.bytes });
    return out;
}

/// Checks every entry of a bundle and adds the intact ones to the disk cache. A bundle with
/// damaged entries is error.CacheIo after the intact ones were imported.
pub fn importBundle(self: Cache, path: [:0]const u8) Error!Transfer {
    var out: Transfer = .{};
    try self.lib.call("cuabi_cache_import", .{ path.ptr, &out.entries, &out.refused });
    return out;
}

/// Gives the CUDA driver a persistent JIT cache under the cuabi cache directory, where the
/// operator has not chosen one. NOT thread-safe (it sets environment variables): call it at
/// start-up, before other threads exist and before any CUDA call.
pub fn configureDriverJit(self: Cache) Error!void {
    return self.lib.call("cuabi_cache_configure_driver_jit", .{});
}

/// The driver JIT cache settings in effect.
pub fn driverJitInfo(self: Cache) Error!types.DriverJitCacheInfo {
    var raw = types.outputStruct(c.cuabi_driver_jit_cache_info);
    try self.lib.call("cuabi_cache_get_driver_jit_info", .{&raw});
    return .fromC(raw);
}

/// The driver JIT cache directory in effect (caller frees).
pub fn driverJitPath(self: Cache, allocator: Allocator) (Error || Allocator.Error)![:0]u8 {
    return text.read(self.lib, "cuabi_cache_get_driver_jit_path", .{}, allocator);
}
