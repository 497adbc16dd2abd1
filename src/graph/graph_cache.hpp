// The graph cache: instantiated graphs kept by caller key bytes and capacity class,
// bounded, least recently used evicted first.
//
// Why capacity classes: a graph captured for 300 elements works for any size its kernels were
// written to handle up to its buffers' capacity; keying by the next power of two lets sizes
// 257..512 share one graph (the caller updates the size argument) instead of capturing hundreds.
//
// Ownership (why FFI users cannot double-free): the cache holds its own reference to each graph
// object. Insert takes a reference from the caller's handle and leaves the handle to the caller;
// lookup publishes a NEW handle referencing the same graph object. Every handle is destroyed
// exactly once by whoever received it, and the graph object dies when the last handle and the
// cache entry are gone.
//
// Entries are scoped by the context they were inserted under; the entry keeps that context
// object alive, so a scope pointer can never be reused by a new context while entries name it.
// The cache stores Objects, not graphs, so unit tests exercise it without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/handle_table.hpp"

namespace cuabi {
namespace graph {

// The capacity class of `size`: the smallest power of two >= size, with 0 and 1 both in class 1,
// and every size above 2^63 in the saturated class UINT64_MAX (no power of two above 2^63 fits).
uint64_t capacity_class(uint64_t size);

// The default bound: enough for the handful of shapes a service replays, small enough that
// forgotten entries cannot hold much device memory.
constexpr size_t kDefaultCacheCapacity = 256;

struct CacheStats {
    uint64_t entries = 0, capacity = 0;
    uint64_t hits = 0, misses = 0, insertions = 0, evictions = 0;
};

class GraphCache {
public:
    explicit GraphCache(size_t capacity = kDefaultCacheCapacity) : capacity_(capacity) {}

    // The process-wide cache behind cuabi_graph_cache_*. Never destroyed (entries may hold
    // contexts that must outlive static destructors).
    static GraphCache& instance();

    // The value stored under (scope, class of size, key bytes), marked most recently used; an
    // empty pointer on a miss. Counts a hit or a miss. No allocation on a hit.
    std::shared_ptr<Object> lookup(const Object* scope, const void* key, size_t key_size, uint64_t size);

    // Stores `value` under (scope, class of size, key bytes), replacing an entry with the same
    // key, then evicts least recently used entries beyond the capacity (a capacity of 0 keeps
    // nothing). `scope` is kept alive by the entry. OUT_OF_HOST_MEMORY if the entry cannot be
    // allocated; the cache is unchanged then.
    Status insert(std::shared_ptr<Object> scope, const void* key, size_t key_size, uint64_t size,
                  std::shared_ptr<Object> value);

    // Changes the bound, evicting least recently used entries down to it.
    void set_capacity(size_t capacity);

    // Drops the entries of `scope`, or every entry when scope is nullptr. Not counted as evictions.
    void clear(const Object* scope);

    CacheStats stats() const;

private:
    struct Entry {
        std::shared_ptr<Object> scope;
        uint64_t capacity_class = 0;
        uint64_t hash = 0;
        std::string key;
        std::shared_ptr<Object> value;
    };
    using Lru = std::list<Entry>;  // front = most recently used

    // Buckets by hash; equal hashes with different bytes share a bucket and are told apart by
    // comparing scope, class and bytes.
    Lru::iterator find(uint64_t hash, const Object* scope, uint64_t cls, const void* key, size_t key_size);
    void erase(Lru::iterator entry, std::vector<std::shared_ptr<Object>>* released);
    void evict_to(size_t capacity, std::vector<std::shared_ptr<Object>>* released);

    mutable std::mutex mutex_;
    size_t capacity_;
    Lru lru_;
    std::unordered_multimap<uint64_t, Lru::iterator> index_;
    CacheStats counters_;
};

}  // namespace graph
}  // namespace cuabi
