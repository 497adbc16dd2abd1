// The graph cache's keys, capacity classes, LRU bound and counters, with plain objects standing in
// for graphs (the cache stores Objects; no GPU is needed to prove its bookkeeping).
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>

#include "graph/graph_cache.hpp"

namespace cuabi {
namespace graph {
namespace {

struct Thing final : Object {
    explicit Thing(int id_value) : id(id_value) {}
    int id;
};

struct Scope final : Object {};

int id_of(const std::shared_ptr<Object>& value) { return value ? static_cast<Thing&>(*value).id : -1; }

std::shared_ptr<Object> thing(int id) { return std::make_shared<Thing>(id); }

TEST(GraphCapacityClass, ZeroAndOneShareTheSmallestClass) {
    EXPECT_EQ(capacity_class(0), 1u);
    EXPECT_EQ(capacity_class(1), 1u);
}

TEST(GraphCapacityClass, RoundsUpToTheNextPowerOfTwo) {
    EXPECT_EQ(capacity_class(2), 2u);
    EXPECT_EQ(capacity_class(3), 4u);
    EXPECT_EQ(capacity_class(256), 256u);
    EXPECT_EQ(capacity_class(257), 512u);
    EXPECT_EQ(capacity_class(513), 1024u);
    EXPECT_EQ(capacity_class((uint64_t{1} << 32) + 1), uint64_t{1} << 33);
}

TEST(GraphCapacityClass, SaturatesAboveTheLargestPowerOfTwo) {
    EXPECT_EQ(capacity_class(uint64_t{1} << 63), uint64_t{1} << 63);
    EXPECT_EQ(capacity_class((uint64_t{1} << 63) + 1), UINT64_MAX);
    EXPECT_EQ(capacity_class(UINT64_MAX), UINT64_MAX);
}

TEST(GraphCache, MissThenHitCountsBoth) {
    GraphCache cache(4);
    auto scope = std::make_shared<Scope>();
    EXPECT_EQ(cache.lookup(scope.get(), "key", 3, 100), nullptr);
    ASSERT_EQ(cache.insert(scope, "key", 3, 100, thing(7)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "key", 3, 100)), 7);
    CacheStats stats = cache.stats();
    EXPECT_EQ(stats.hits, 1u);
    EXPECT_EQ(stats.misses, 1u);
    EXPECT_EQ(stats.insertions, 1u);
    EXPECT_EQ(stats.entries, 1u);
    EXPECT_EQ(stats.capacity, 4u);
}

TEST(GraphCache, SizesInOneCapacityClassShareAnEntry) {
    GraphCache cache(4);
    auto scope = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(scope, "k", 1, 300, thing(1)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "k", 1, 257)), 1);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "k", 1, 512)), 1);
    EXPECT_EQ(cache.lookup(scope.get(), "k", 1, 256), nullptr);
    EXPECT_EQ(cache.lookup(scope.get(), "k", 1, 513), nullptr);
}

TEST(GraphCache, KeysDifferByEveryByteAndByLength) {
    GraphCache cache(8);
    auto scope = std::make_shared<Scope>();
    const unsigned char a[4] = {1, 2, 3, 4};
    const unsigned char b[4] = {1, 2, 3, 5};
    ASSERT_EQ(cache.insert(scope, a, 4, 1, thing(1)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, b, 4, 1, thing(2)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, a, 3, 1, thing(3)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, a, 0, 1, thing(4)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), a, 4, 1)), 1);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), b, 4, 1)), 2);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), a, 3, 1)), 3);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), nullptr, 0, 1)), 4);
}

TEST(GraphCache, EntriesOfOneContextAreInvisibleToAnother) {
    GraphCache cache(8);
    auto first = std::make_shared<Scope>();
    auto second = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(first, "k", 1, 1, thing(1)), CUABI_SUCCESS);
    EXPECT_EQ(cache.lookup(second.get(), "k", 1, 1), nullptr);
    ASSERT_EQ(cache.insert(second, "k", 1, 1, thing(2)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(cache.lookup(first.get(), "k", 1, 1)), 1);
    EXPECT_EQ(id_of(cache.lookup(second.get(), "k", 1, 1)), 2);
}

TEST(GraphCache, InsertingAnExistingKeyReplacesItsValue) {
    GraphCache cache(8);
    auto scope = std::make_shared<Scope>();
    std::shared_ptr<Object> old_value = thing(1);
    ASSERT_EQ(cache.insert(scope, "k", 1, 1, old_value), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, "k", 1, 1, thing(2)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "k", 1, 1)), 2);
    EXPECT_EQ(cache.stats().entries, 1u);
    EXPECT_EQ(cache.stats().evictions, 0u);
    EXPECT_EQ(old_value.use_count(), 1) << "the replaced value must be released by the cache";
}

TEST(GraphCache, EvictsTheLeastRecentlyUsedEntryBeyondCapacity) {
    GraphCache cache(3);
    auto scope = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(scope, "a", 1, 1, thing(1)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, "b", 1, 1, thing(2)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(scope, "c", 1, 1, thing(3)), CUABI_SUCCESS);
    // Touch "a" so that "b" becomes the least recently used.
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "a", 1, 1)), 1);
    ASSERT_EQ(cache.insert(scope, "d", 1, 1, thing(4)), CUABI_SUCCESS);
    EXPECT_EQ(cache.lookup(scope.get(), "b", 1, 1), nullptr);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "a", 1, 1)), 1);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "c", 1, 1)), 3);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "d", 1, 1)), 4);
    CacheStats stats = cache.stats();
    EXPECT_EQ(stats.entries, 3u);
    EXPECT_EQ(stats.evictions, 1u);
}

TEST(GraphCache, EvictionReleasesTheCachesReference) {
    GraphCache cache(1);
    auto scope = std::make_shared<Scope>();
    std::shared_ptr<Object> first = thing(1);
    ASSERT_EQ(cache.insert(scope, "a", 1, 1, first), CUABI_SUCCESS);
    EXPECT_EQ(first.use_count(), 2);
    ASSERT_EQ(cache.insert(scope, "b", 1, 1, thing(2)), CUABI_SUCCESS);
    EXPECT_EQ(first.use_count(), 1);
}

TEST(GraphCache, LookupHandsOutASharedReferenceThatOutlivesEviction) {
    GraphCache cache(1);
    auto scope = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(scope, "a", 1, 1, thing(1)), CUABI_SUCCESS);
    std::shared_ptr<Object> held = cache.lookup(scope.get(), "a", 1, 1);
    ASSERT_EQ(cache.insert(scope, "b", 1, 1, thing(2)), CUABI_SUCCESS);
    EXPECT_EQ(id_of(held), 1);
    EXPECT_EQ(held.use_count(), 1);
}

TEST(GraphCache, LoweringTheCapacityEvictsDownToIt) {
    GraphCache cache(8);
    auto scope = std::make_shared<Scope>();
    for (int i = 0; i < 6; ++i) {
        std::string key = "k" + std::to_string(i);
        ASSERT_EQ(cache.insert(scope, key.data(), key.size(), 1, thing(i)), CUABI_SUCCESS);
    }
    cache.set_capacity(2);
    CacheStats stats = cache.stats();
    EXPECT_EQ(stats.entries, 2u);
    EXPECT_EQ(stats.evictions, 4u);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "k5", 2, 1)), 5);
    EXPECT_EQ(id_of(cache.lookup(scope.get(), "k4", 2, 1)), 4);
    EXPECT_EQ(cache.lookup(scope.get(), "k3", 2, 1), nullptr);
}

TEST(GraphCache, CapacityZeroKeepsNothing) {
    GraphCache cache(0);
    auto scope = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(scope, "a", 1, 1, thing(1)), CUABI_SUCCESS);
    EXPECT_EQ(cache.lookup(scope.get(), "a", 1, 1), nullptr);
    EXPECT_EQ(cache.stats().entries, 0u);
}

TEST(GraphCache, ClearDropsOneContextsEntriesOrAll) {
    GraphCache cache(8);
    auto first = std::make_shared<Scope>();
    auto second = std::make_shared<Scope>();
    ASSERT_EQ(cache.insert(first, "a", 1, 1, thing(1)), CUABI_SUCCESS);
    ASSERT_EQ(cache.insert(second, "a", 1, 1, thing(2)), CUABI_SUCCESS);
    cache.clear(first.get());
    EXPECT_EQ(cache.lookup(first.get(), "a", 1, 1), nullptr);
    EXPECT_EQ(id_of(cache.lookup(second.get(), "a", 1, 1)), 2);
    EXPECT_EQ(first.use_count(), 1) << "a cleared entry must release its context";
    cache.clear(nullptr);
    EXPECT_EQ(cache.stats().entries, 0u);
    EXPECT_EQ(cache.stats().evictions, 0u);
}

TEST(GraphCache, EntriesKeepTheirContextAlive) {
    GraphCache cache(8);
    auto scope = std::make_shared<Scope>();
    std::weak_ptr<Scope> watch = scope;
    ASSERT_EQ(cache.insert(std::move(scope), "a", 1, 1, thing(1)), CUABI_SUCCESS);
    EXPECT_FALSE(watch.expired());
    cache.clear(nullptr);
    EXPECT_TRUE(watch.expired());
}

}  // namespace
}  // namespace graph
}  // namespace cuabi
