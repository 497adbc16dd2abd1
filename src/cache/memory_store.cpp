#include "cache/memory_store.hpp"

#include <mutex>

namespace cuabi {
namespace cache {

std::shared_ptr<const CachedImage> MemoryStore::find(const Key& key) const {
    const Shard& shard = shard_of(key);
    std::shared_lock<std::shared_mutex> lock(shard.mutex);
    auto found = shard.entries.find(key);
    if (found == shard.entries.end()) return nullptr;
    found->second.last_use.store(shard.tick.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);
    return found->second.image;
}

uint64_t MemoryStore::insert(const Key& key, std::shared_ptr<const CachedImage> image) {
    Shard& shard = shard_of(key);
    uint64_t bytes = image->footprint();
    std::unique_lock<std::shared_mutex> lock(shard.mutex);
    Entry& entry = shard.entries[key];
    shard.bytes = shard.bytes - entry.bytes + bytes;
    entry.image = std::move(image);
    entry.bytes = bytes;
    entry.last_use.store(shard.tick.fetch_add(1, std::memory_order_relaxed), std::memory_order_relaxed);

    // Drop least recently used entries (never the one just inserted) until within bounds. A
    // linear scan per drop: inserts follow a compile or a disk read, both far costlier.
    uint64_t dropped = 0;
    while (shard.bytes > shard_max_bytes_ && shard.entries.size() > 1) {
        auto oldest = shard.entries.end();
        for (auto it = shard.entries.begin(); it != shard.entries.end(); ++it) {
            if (it->first == key) continue;
            if (oldest == shard.entries.end() ||
                it->second.last_use.load(std::memory_order_relaxed) <
                    oldest->second.last_use.load(std::memory_order_relaxed))
                oldest = it;
        }
        shard.bytes -= oldest->second.bytes;
        shard.entries.erase(oldest);
        ++dropped;
    }
    return dropped;
}

void MemoryStore::clear() {
    for (Shard& shard : shards_) {
        std::unique_lock<std::shared_mutex> lock(shard.mutex);
        shard.entries.clear();
        shard.bytes = 0;
    }
}

uint64_t MemoryStore::entries() const {
    uint64_t total = 0;
    for (const Shard& shard : shards_) {
        std::shared_lock<std::shared_mutex> lock(shard.mutex);
        total += shard.entries.size();
    }
    return total;
}

uint64_t MemoryStore::bytes() const {
    uint64_t total = 0;
    for (const Shard& shard : shards_) {
        std::shared_lock<std::shared_mutex> lock(shard.mutex);
        total += shard.bytes;
    }
    return total;
}

}  // namespace cache
}  // namespace cuabi
