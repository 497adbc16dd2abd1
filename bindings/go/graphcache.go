package cuabi

// #include "zcalls.h"
import "C"

import "runtime"

// The graph cache: one per process, bounded (256 graphs by default), least recently used first
// out. Entries are found by (context, key bytes, capacity class of a size), so sizes of one class
// share a graph whose size arguments the caller then updates. All its functions are safe for
// concurrent use.

// GraphCacheCapacityClass is the class the cache files size under: the next power of two (0 and
// 1 give 1; sizes above 2^63 give math.MaxUint64).
func GraphCacheCapacityClass(size uint64) (uint64, error) {
	if err := loaded(); err != nil {
		return 0, err
	}
	var class C.uint64_t
	err := takeFailure(C.cuabi_go_graph_cache_get_capacity_class(C.uint64_t(size), &class))
	return uint64(class), err
}

// LookupGraph finds the graph cached under (c, key, capacity class of size) and returns a new
// handle to it, which the caller closes. A miss returns ErrNotFound itself (no message is built).
func (c *Context) LookupGraph(key []byte, size uint64) (*Graph, error) {
	ctx, err := c.ref()
	if err != nil {
		return nil, err
	}
	var graph C.uintptr_t
	f := C.cuabi_go_graph_cache_lookup(ctx, bytesPointer(key), C.size_t(len(key)), C.uint64_t(size), &graph)
	runtime.KeepAlive(c)
	if quiet(f, ErrNotFound) {
		return nil, ErrNotFound
	}
	if err := takeFailure(f); err != nil {
		return nil, err
	}
	return newGraph(graph), nil
}

// InsertGraph caches g under (c, key, capacity class of size), replacing an entry with the same
// key and evicting beyond the capacity. The cache holds its own reference: g stays the caller's.
// ErrContextMismatch when g belongs to another device.
func (c *Context) InsertGraph(key []byte, size uint64, g *Graph) error {
	graph, err := g.ref()
	if err != nil {
		return err
	}
	err = call(c, func(ctx C.uintptr_t) *C.cuabi_go_failure {
		return C.cuabi_go_graph_cache_insert(ctx, bytesPointer(key), C.size_t(len(key)), C.uint64_t(size), graph)
	})
	runtime.KeepAlive(g)
	return err
}

// ClearGraphCache drops the graph-cache entries inserted under c (Close does it too).
func (c *Context) ClearGraphCache() error {
	return call(c, func(ctx C.uintptr_t) *C.cuabi_go_failure { return C.cuabi_go_graph_cache_clear(ctx) })
}

// ClearGraphCache drops every entry of the graph cache, of every context.
func ClearGraphCache() error {
	if err := loaded(); err != nil {
		return err
	}
	return takeFailure(C.cuabi_go_graph_cache_clear(0))
}

// SetGraphCacheCapacity sets the most graphs the cache holds, evicting down to it now (0 disables
// caching).
func SetGraphCacheCapacity(maxEntries int) error {
	if err := loaded(); err != nil {
		return err
	}
	if maxEntries < 0 {
		return newError(ErrInvalidArgument, "graph cache capacity %d is negative. Fix: pass 0 (no caching) or more.", maxEntries)
	}
	return takeFailure(C.cuabi_go_graph_cache_set_capacity(C.size_t(maxEntries)))
}

// GraphCacheStats are the graph cache's counters.
type GraphCacheStats struct {
	Entries    uint64 // graphs held now
	Capacity   uint64 // the bound
	Hits       uint64
	Misses     uint64
	Insertions uint64
	Evictions  uint64 // entries dropped to stay within the capacity
}

// ReadGraphCacheStats reads the graph cache's counters.
func ReadGraphCacheStats() (GraphCacheStats, error) {
	if err := loaded(); err != nil {
		return GraphCacheStats{}, err
	}
	s := new(C.cuabi_graph_cache_stats)
	if err := takeFailure(C.cuabi_go_graph_cache_get_stats(s)); err != nil {
		return GraphCacheStats{}, err
	}
	return GraphCacheStats{
		Entries: uint64(s.entries), Capacity: uint64(s.capacity), Hits: uint64(s.hits),
		Misses: uint64(s.misses), Insertions: uint64(s.insertions), Evictions: uint64(s.evictions),
	}, nil
}
