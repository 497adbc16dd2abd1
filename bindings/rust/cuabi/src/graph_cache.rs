//! The process-wide graph cache: graphs found again by (context, key bytes, capacity class).
//!
//! Bounded (256 graphs by default), least recently used first out. Sizes in one capacity class
//! (the next power of two) share a graph, whose size arguments the caller then updates. Entries
//! keep their context alive until evicted or cleared. Every function is thread-safe.

use crate::context::Context;
use crate::error::{check, Result};
use crate::ffi::{call, defaults, raw};
use crate::graph::Graph;
use cuabi_sys as sys;

/// The capacity class `size` is filed under: the next power of two (0 and 1 give 1; sizes above
/// 2^63 all give `u64::MAX`).
pub fn capacity_class(size: u64) -> Result<u64> {
    Ok(raw!(cuabi_graph_cache_get_capacity_class(size)))
}

/// The graph cached under (context, key, capacity class of size), as a new handle; `None` on a miss.
pub fn lookup(context: &Context, key: &[u8], size: u64) -> Result<Option<Graph>> {
    let mut graph = std::ptr::null_mut();
    let status = raw!(cuabi_graph_cache_lookup(context.as_raw(), key.as_ptr().cast(), key.len(), size, &mut graph));
    if status == sys::CUABI_ERROR_NOT_FOUND {
        return Ok(None);
    }
    check(status)?;
    Ok(Some(Graph::from_owned(graph)))
}

/// Caches `graph` under (context, key, capacity class of size), replacing an entry of the same
/// key; the caller keeps its own handle.
pub fn insert(context: &Context, key: &[u8], size: u64, graph: &Graph) -> Result<()> {
    call!(cuabi_graph_cache_insert(context.as_raw(), key.as_ptr().cast(), key.len(), size, graph.as_raw()))
}

/// Sets the most graphs the cache holds, evicting down to it now (0 disables caching).
pub fn set_capacity(max_entries: usize) -> Result<()> {
    raw!(cuabi_graph_cache_set_capacity(max_entries));
    Ok(())
}

/// Drops the entries inserted under `context`, or every entry for `None`.
pub fn clear(context: Option<&Context>) -> Result<()> {
    call!(cuabi_graph_cache_clear(context.map_or(std::ptr::null_mut(), Context::as_raw)))
}

/// The cache's counters.
pub fn stats() -> Result<GraphCacheStats> {
    let mut raw: sys::cuabi_graph_cache_stats = defaults()?;
    call!(cuabi_graph_cache_get_stats(&mut raw))?;
    Ok(GraphCacheStats {
        entries: raw.entries,
        capacity: raw.capacity,
        hits: raw.hits,
        misses: raw.misses,
        insertions: raw.insertions,
        evictions: raw.evictions,
    })
}

/// Graph cache counters ([`stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct GraphCacheStats {
    /// Graphs held now.
    pub entries: u64,
    /// The bound ([`set_capacity`]).
    pub capacity: u64,
    /// Lookups that found a graph.
    pub hits: u64,
    /// Lookups that did not.
    pub misses: u64,
    /// Insertions.
    pub insertions: u64,
    /// Entries dropped to stay within the capacity.
    pub evictions: u64,
}
