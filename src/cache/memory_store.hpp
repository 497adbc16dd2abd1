// The per-process memory layer: key -> shared_ptr<const CachedImage>, bounded in bytes.
//
// 16 shards, each a hash map under a shared_mutex: a hit takes one shared lock and copies one
// shared_ptr (no allocation); only inserts take a shard exclusively. Each shard holds at most
// max_bytes / 16; when an insert goes over, the least recently used entries of that shard are
// dropped (recency is a per-shard tick stamped on every hit). The entry being inserted is never
// dropped by its own insert, so one image larger than a shard's share still stays cached.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <unordered_map>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

class MemoryStore {
public:
    explicit MemoryStore(uint64_t max_bytes) : shard_max_bytes_(max_bytes / kShards) {}

    std::shared_ptr<const CachedImage> find(const Key& key) const;
    // Inserts or replaces; returns how many other entries were dropped to stay in bounds.
    uint64_t insert(const Key& key, std::shared_ptr<const CachedImage> image);
    void clear();

    uint64_t entries() const;
    uint64_t bytes() const;
    uint64_t max_bytes() const { return shard_max_bytes_ * kShards; }

private:
    static constexpr size_t kShards = 16;
    struct KeyHash {
        size_t operator()(const Key& key) const { return static_cast<size_t>(key.low ^ (key.high >> 7)); }
    };
    struct Entry {
        std::shared_ptr<const CachedImage> image;
        uint64_t bytes = 0;
        mutable std::atomic<uint64_t> last_use{0};
    };
    struct Shard {
        mutable std::shared_mutex mutex;
        std::unordered_map<Key, Entry, KeyHash> entries;
        uint64_t bytes = 0;
        mutable std::atomic<uint64_t> tick{0};
    };

    Shard& shard_of(const Key& key) { return shards_[key.high % kShards]; }
    const Shard& shard_of(const Key& key) const { return shards_[key.high % kShards]; }

    uint64_t shard_max_bytes_;
    Shard shards_[kShards];
};

}  // namespace cache
}  // namespace cuabi
