// The per-process memory layer: hits share one object, bytes stay bounded, LRU order.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "cache/memory_store.hpp"
#include "cache_support/test_images.hpp"

using namespace cuabi::cache;

namespace {

// Keys that land in the same shard (shard = key.high % 16), so one shard's LRU is observable.
std::vector<uint64_t> indices_in_shard_zero(size_t count) {
    std::vector<uint64_t> indices;
    for (uint64_t i = 0; indices.size() < count; ++i)
        if (cache_test::make_key(i).high % 16 == 0) indices.push_back(i);
    return indices;
}

}  // namespace

TEST(CacheMemory, AHitReturnsTheStoredObjectItself) {
    MemoryStore store(1 << 20);
    auto image = cache_test::make_image(1);
    store.insert(cache_test::make_key(1), image);
    EXPECT_EQ(store.find(cache_test::make_key(1)).get(), image.get());
    EXPECT_EQ(store.find(cache_test::make_key(2)), nullptr);
    EXPECT_EQ(store.entries(), 1u);
    EXPECT_EQ(store.bytes(), image->footprint());
}

TEST(CacheMemory, ReplacingAnEntryKeepsTheByteCountExact) {
    MemoryStore store(1 << 20);
    store.insert(cache_test::make_key(1), cache_test::make_image(1, 1000));
    auto bigger = cache_test::make_image(1, 5000);
    store.insert(cache_test::make_key(1), bigger);
    EXPECT_EQ(store.entries(), 1u);
    EXPECT_EQ(store.bytes(), bigger->footprint());
}

TEST(CacheMemory, EvictsTheLeastRecentlyUsedEntryOfAFullShard) {
    std::vector<uint64_t> same_shard = indices_in_shard_zero(4);
    uint64_t entry_bytes = cache_test::make_image(0, 4000)->footprint();
    MemoryStore store(16 * (3 * entry_bytes + 100));  // each shard holds three entries
    for (int i = 0; i < 3; ++i) store.insert(cache_test::make_key(same_shard[i]), cache_test::make_image(0, 4000));
    ASSERT_NE(store.find(cache_test::make_key(same_shard[0])), nullptr);  // now the most recent
    EXPECT_EQ(store.insert(cache_test::make_key(same_shard[3]), cache_test::make_image(0, 4000)), 1u);
    EXPECT_NE(store.find(cache_test::make_key(same_shard[0])), nullptr);
    EXPECT_EQ(store.find(cache_test::make_key(same_shard[1])), nullptr);  // the least recently used
    EXPECT_NE(store.find(cache_test::make_key(same_shard[2])), nullptr);
    EXPECT_NE(store.find(cache_test::make_key(same_shard[3])), nullptr);
}

TEST(CacheMemory, StaysWithinItsBoundUnderManyInserts) {
    MemoryStore store(256 * 1024);
    uint64_t largest = 0;
    for (uint64_t i = 0; i < 2000; ++i) {
        auto image = cache_test::make_image(i);
        largest = std::max(largest, image->footprint());
        store.insert(cache_test::make_key(i), image);
    }
    EXPECT_LE(store.bytes(), store.max_bytes());
    EXPECT_GT(store.entries(), 16u);
}

TEST(CacheMemory, KeepsAnEntryLargerThanItsShardShare) {
    MemoryStore store(16 * 1024);
    store.insert(cache_test::make_key(1), cache_test::make_image(1, 64 * 1024));
    EXPECT_NE(store.find(cache_test::make_key(1)), nullptr);
}

TEST(CacheMemory, ClearEmptiesEveryShard) {
    MemoryStore store(1 << 20);
    for (uint64_t i = 0; i < 100; ++i) store.insert(cache_test::make_key(i), cache_test::make_image(i));
    store.clear();
    EXPECT_EQ(store.entries(), 0u);
    EXPECT_EQ(store.bytes(), 0u);
    EXPECT_EQ(store.find(cache_test::make_key(5)), nullptr);
}

TEST(CacheMemory, ConcurrentReadersAndWritersSeeOnlyRightContents) {
    MemoryStore store(512 * 1024);
    std::vector<std::shared_ptr<CachedImage>> images;
    for (uint64_t i = 0; i < 64; ++i) images.push_back(cache_test::make_image(i));
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            for (int n = 0; n < 5000; ++n) {
                uint64_t i = static_cast<uint64_t>((n * 7 + t * 13) % 64);
                auto found = store.find(cache_test::make_key(i));
                if (found == nullptr) store.insert(cache_test::make_key(i), images[i]);
                else if (found.get() != images[i].get()) ++wrong;
            }
        });
    }
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_LE(store.bytes(), store.max_bytes() + images[0]->footprint() * 16);
}
