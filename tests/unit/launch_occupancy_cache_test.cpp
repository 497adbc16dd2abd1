// The per-kernel occupancy cache: a hit returns exactly what was stored for that key, never
// another key's answer, also when more keys arrive than it has slots and when threads race.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "launch/occupancy_cache.hpp"

namespace cuabi {
namespace launch {
namespace {

// A deterministic "occupancy answer" per key, as the driver's would be.
uint32_t answer(uint32_t threads, uint32_t shared) { return (threads / 32 + shared / 1024) % 65 + (threads & 1); }

TEST(OccupancyCache, MissesUntilStoredThenHits) {
    OccupancyCache cache;
    uint32_t value = 99;
    EXPECT_FALSE(cache.lookup(256, 0, &value));
    cache.store(256, 0, 6);
    ASSERT_TRUE(cache.lookup(256, 0, &value));
    EXPECT_EQ(value, 6u);
    EXPECT_FALSE(cache.lookup(256, 1024, &value));
    EXPECT_FALSE(cache.lookup(128, 0, &value));
}

TEST(OccupancyCache, ZeroIsAnAnswerNotAnEmptySlot) {
    OccupancyCache cache;
    cache.store(1024, 200 * 1024, 0);
    uint32_t value = 99;
    ASSERT_TRUE(cache.lookup(1024, 200 * 1024, &value));
    EXPECT_EQ(value, 0u);
}

TEST(OccupancyCache, KeysThatDoNotFitAreNotCached) {
    OccupancyCache cache;
    cache.store(70000, 0, 3);  // more threads than 16 bits hold
    cache.store(64, 0, 0xFFFF);  // an answer too large for the entry
    uint32_t value = 0;
    EXPECT_FALSE(cache.lookup(70000, 0, &value));
    EXPECT_FALSE(cache.lookup(64, 0, &value));
}

TEST(OccupancyCache, AsManyKeysAsTheProbeLengthAlwaysStay) {
    OccupancyCache cache;
    const uint32_t blocks[OccupancyCache::kProbe] = {128, 256, 512, 1024};
    for (uint32_t block : blocks) cache.store(block, 4096, answer(block, 4096));
    for (uint32_t block : blocks) {
        uint32_t value = 0;
        ASSERT_TRUE(cache.lookup(block, 4096, &value)) << block;
        EXPECT_EQ(value, answer(block, 4096));
    }
}

TEST(OccupancyCache, ManyMoreKeysThanSlotsNeverGiveAWrongAnswer) {
    OccupancyCache cache;
    for (uint32_t round = 0; round < 3; ++round)
        for (uint32_t threads = 32; threads <= 1024; threads += 32)
            for (uint32_t shared = 0; shared <= 64 * 1024; shared += 8 * 1024) {
                uint32_t value = 0;
                if (cache.lookup(threads, shared, &value))
                    ASSERT_EQ(value, answer(threads, shared)) << threads << " threads, " << shared << " bytes";
                else
                    cache.store(threads, shared, answer(threads, shared));
            }
}

TEST(OccupancyCache, ConcurrentStoresAndLookupsStayConsistent) {
    OccupancyCache cache;
    std::atomic<bool> wrong{false};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&cache, &wrong, t] {
            for (int i = 0; i < 20000; ++i) {
                uint32_t block = 32 * static_cast<uint32_t>(1 + (i * 7 + t) % 40);
                uint32_t shared = 1024 * static_cast<uint32_t>((i + t) % 5);
                uint32_t value = 0;
                if (cache.lookup(block, shared, &value)) {
                    if (value != answer(block, shared)) wrong = true;
                } else {
                    cache.store(block, shared, answer(block, shared));
                }
            }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_FALSE(wrong.load());
}

}  // namespace
}  // namespace launch
}  // namespace cuabi
