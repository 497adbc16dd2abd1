#include "graph/graph_cache.hpp"

#include <cstring>
#include <new>

#define XXH_INLINE_ALL
#include "xxhash.h"

namespace cuabi {
namespace graph {
namespace {

uint64_t entry_hash(const Object* scope, uint64_t cls, const void* key, size_t key_size) {
    // The class seeds the hash and the scope is mixed in after, so equal bytes in different
    // classes or contexts land in different buckets.
    uint64_t bytes = XXH3_64bits_withSeed(key_size != 0 ? key : "", key_size, cls);
    uint64_t where = reinterpret_cast<uintptr_t>(scope);
    return XXH3_64bits_withSeed(&where, sizeof where, bytes);
}

}  // namespace

uint64_t capacity_class(uint64_t size) {
    if (size <= 1) return 1;
    if (size > (uint64_t{1} << 63)) return UINT64_MAX;
    // Round up: smear the highest set bit of size - 1 downwards, then add one.
    uint64_t v = size - 1;
    v |= v >> 1;
    v |= v >> 2;
    v |= v >> 4;
    v |= v >> 8;
    v |= v >> 16;
    v |= v >> 32;
    return v + 1;
}

GraphCache& GraphCache::instance() {
    static GraphCache* cache = new GraphCache();
    return *cache;
}

GraphCache::Lru::iterator GraphCache::find(uint64_t hash, const Object* scope, uint64_t cls, const void* key,
                                           size_t key_size) {
    auto range = index_.equal_range(hash);
    for (auto it = range.first; it != range.second; ++it) {
        const Entry& entry = *it->second;
        if (entry.scope.get() == scope && entry.capacity_class == cls && entry.key.size() == key_size &&
            (key_size == 0 || std::memcmp(entry.key.data(), key, key_size) == 0))
            return it->second;
    }
    return lru_.end();
}

void GraphCache::erase(Lru::iterator entry, std::vector<std::shared_ptr<Object>>* released) {
    auto range = index_.equal_range(entry->hash);
    for (auto it = range.first; it != range.second; ++it) {
        if (it->second == entry) {
            index_.erase(it);
            break;
        }
    }
    // The value may be the last reference to a graph, whose destruction calls the driver: hand
    // it to the caller to release after the lock is dropped. `released` has room reserved.
    released->push_back(std::move(entry->value));
    released->push_back(std::move(entry->scope));
    lru_.erase(entry);
}

void GraphCache::evict_to(size_t capacity, std::vector<std::shared_ptr<Object>>* released) {
    while (lru_.size() > capacity) {
        erase(std::prev(lru_.end()), released);
        ++counters_.evictions;
    }
}

std::shared_ptr<Object> GraphCache::lookup(const Object* scope, const void* key, size_t key_size, uint64_t size) {
    uint64_t cls = capacity_class(size);
    uint64_t hash = entry_hash(scope, cls, key, key_size);
    std::lock_guard<std::mutex> lock(mutex_);
    Lru::iterator found = find(hash, scope, cls, key, key_size);
    if (found == lru_.end()) {
        ++counters_.misses;
        return nullptr;
    }
    ++counters_.hits;
    lru_.splice(lru_.begin(), lru_, found);  // relinks the node: no allocation
    return found->value;
}

Status GraphCache::insert(std::shared_ptr<Object> scope, const void* key, size_t key_size, uint64_t size,
                          std::shared_ptr<Object> value) {
    uint64_t cls = capacity_class(size);
    uint64_t hash = entry_hash(scope.get(), cls, key, key_size);
    // Declared before the lock so that what is released dies after the lock is dropped.
    std::vector<std::shared_ptr<Object>> released;
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        // Room for the replaced entry and every eviction, so erase() never allocates.
        released.reserve(2 * (lru_.size() + 1));
        Entry entry;
        entry.scope = std::move(scope);
        entry.capacity_class = cls;
        entry.hash = hash;
        entry.key.assign(static_cast<const char*>(key), key_size);
        entry.value = std::move(value);
        Lru::iterator old = find(hash, entry.scope.get(), cls, key, key_size);
        lru_.push_front(std::move(entry));
        try {
            index_.emplace(hash, lru_.begin());
        } catch (const std::bad_alloc&) {
            lru_.pop_front();
            throw;
        }
        if (old != lru_.end()) erase(old, &released);
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory or lower the graph cache capacity",
                    "could not allocate a graph cache entry for a %zu-byte key", key_size);
    }
    ++counters_.insertions;
    evict_to(capacity_, &released);
    return CUABI_SUCCESS;
}

void GraphCache::set_capacity(size_t capacity) {
    std::vector<std::shared_ptr<Object>> released;
    std::lock_guard<std::mutex> lock(mutex_);
    capacity_ = capacity;
    if (lru_.size() <= capacity) return;
    try {
        released.reserve(2 * (lru_.size() - capacity));
    } catch (const std::bad_alloc&) {
        return;  // the bound still holds for the next insert, which evicts again
    }
    evict_to(capacity, &released);
}

void GraphCache::clear(const Object* scope) {
    std::vector<std::shared_ptr<Object>> released;
    std::lock_guard<std::mutex> lock(mutex_);
    try {
        released.reserve(2 * lru_.size());
    } catch (const std::bad_alloc&) {
        return;
    }
    for (auto it = lru_.begin(); it != lru_.end();) {
        auto next = std::next(it);
        if (scope == nullptr || it->scope.get() == scope) erase(it, &released);
        it = next;
    }
}

CacheStats GraphCache::stats() const {
    std::lock_guard<std::mutex> lock(mutex_);
    CacheStats stats = counters_;
    stats.entries = lru_.size();
    stats.capacity = capacity_;
    return stats;
}

}  // namespace graph
}  // namespace cuabi
