//! The process-wide graph cache (`Library.graphCache()`): bounded, least recently used graphs
//! evicted first, entries found by (context, key bytes, capacity class of a size). Lookups,
//! inserts and per-context clearing are on `Context`. Thread-safe.

const errors = @import("errors.zig");
const types = @import("types.zig");
const Library = @import("Library.zig");

const GraphCache = @This();
const Error = errors.Error;

/// The library whose graph cache this is.
lib: *const Library,

/// The capacity class the cache files `size` under: the next power of two (0 and 1 give 1).
pub fn capacityClass(self: GraphCache, size: u64) Error!u64 {
    return (try self.lib.get("cuabi_graph_cache_get_capacity_class"))(size);
}

/// Sets the most graphs the cache holds, evicting down to it now (0 disables caching).
pub fn setCapacity(self: GraphCache, max_entries: usize) Error!void {
    (try self.lib.get("cuabi_graph_cache_set_capacity"))(max_entries);
}

/// Drops every entry, of every context.
pub fn clearAll(self: GraphCache) Error!void {
    return self.lib.call("cuabi_graph_cache_clear", .{null});
}

/// Entries, capacity, hits, misses, insertions and evictions.
pub fn stats(self: GraphCache) Error!types.GraphCacheStats {
    var out = types.outputStruct(types.GraphCacheStats);
    try self.lib.call("cuabi_graph_cache_get_stats", .{&out});
    return out;
}
