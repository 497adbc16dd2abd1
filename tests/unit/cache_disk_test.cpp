// The disk layer through KernelCache, on real files in a private temporary directory.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "cache/disk_scan.hpp"
#include "cache/entry_format.hpp"
#include "cache/kernel_cache.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"
#include "device/context.hpp"

using namespace cuabi::cache;
using cache_test::make_image;
using cache_test::make_key;

namespace {

class CacheDisk : public ::testing::Test {
protected:
    Config config(uint64_t max_bytes = kDefaultDiskMaxBytes) const {
        Config c;
        c.directory = dir_ / "cache";
        c.disk_max_bytes = max_bytes;
        return c;
    }
    std::string entry_path(uint64_t index) const { return cache_test::entry_path(dir_ / "cache", make_key(index)); }
    std::vector<ScannedEntry> entries() const { return cache_test::scan(dir_ / "cache"); }
    cache_test::TempDir dir_;
};

void flip_bit(const std::string& path, off_t offset) {
    int fd = open(path.c_str(), O_RDWR);
    ASSERT_GE(fd, 0) << path;
    unsigned char byte = 0;
    ASSERT_EQ(pread(fd, &byte, 1, offset), 1);
    byte ^= 0x10;
    ASSERT_EQ(pwrite(fd, &byte, 1, offset), 1);
    close(fd);
}

mode_t mode_of(const std::string& path) {
    struct stat info;
    return stat(path.c_str(), &info) == 0 ? info.st_mode & 0777 : 0;
}

void set_mtime(const std::string& path, time_t seconds_ago) {
    struct timespec times[2];
    clock_gettime(CLOCK_REALTIME, &times[0]);
    times[0].tv_sec -= seconds_ago;
    times[1] = times[0];
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

}  // namespace

TEST_F(CacheDisk, AnEntryStoredByOneCacheIsAHitFromDiskForAnotherAndThenFromMemory) {
    KernelCache writer(config());
    cuabi::Counters counters;
    writer.store(make_key(1), make_image(1), &counters);

    KernelCache reader(config());
    Layer layer = Layer::None;
    auto found = reader.lookup(make_key(1), &counters, &layer);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(layer, Layer::Disk);
    EXPECT_TRUE(cache_test::same_image(*found, *make_image(1)));
    EXPECT_EQ(reader.lookup(make_key(1), &counters, &layer).get(), found.get());
    EXPECT_EQ(layer, Layer::Memory);
    EXPECT_EQ(reader.lookup(make_key(2), &counters, &layer), nullptr);
    EXPECT_EQ(layer, Layer::None);

    EXPECT_EQ(counters.memory_cache_hits.load(), 1u);
    EXPECT_EQ(counters.memory_cache_misses.load(), 2u);
    EXPECT_EQ(counters.disk_cache_hits.load(), 1u);
    EXPECT_EQ(counters.disk_cache_misses.load(), 1u);
    Stats stats = reader.stats();
    EXPECT_TRUE(stats.disk_enabled);
    EXPECT_EQ(stats.disk_hits, 1u);
    EXPECT_EQ(stats.disk_entries, 1u);
    EXPECT_EQ(stats.disk_bytes, encode_entry(make_key(1), *make_image(1)).size());
    EXPECT_EQ(writer.stats().disk_stores, 1u);
    EXPECT_EQ(reader.degradation_reason(), "");
}

TEST_F(CacheDisk, EntriesAreShardedByKeyPrefixWithPrivateModes) {
    KernelCache cache(config());
    cache.store(make_key(1), make_image(1), nullptr);
    std::string hex = make_key(1).hex();
    std::string path = dir_ / ("cache/kernels/" + hex.substr(0, 2) + "/" + hex.substr(2) + "." + make_key(1).nvrtc_hex() +
                               ".cuabi");
    EXPECT_EQ(path, entry_path(1));
    EXPECT_EQ(mode_of(path), 0600u);
    EXPECT_EQ(mode_of(dir_ / "cache"), 0700u);
    EXPECT_EQ(mode_of(dir_ / "cache/kernels"), 0700u);
    EXPECT_EQ(mode_of(dir_ / ("cache/kernels/" + hex.substr(0, 2))), 0700u);
}

class CacheDiskCorruption : public CacheDisk, public ::testing::WithParamInterface<const char*> {};

// Each damage is detected on lookup: the entry is removed, counted, reported as a miss; storing
// again (what a compile does next) publishes a good entry.
TEST_P(CacheDiskCorruption, IsDetectedRemovedCountedAndRecompiled) {
    std::string damage = GetParam();
    KernelCache(config()).store(make_key(1), make_image(1, 1000), nullptr);
    std::string path = entry_path(1);
    if (damage == "truncation") ASSERT_EQ(truncate(path.c_str(), 500), 0);
    if (damage == "header") flip_bit(path, 20);                              // the name count
    if (damage == "payload") flip_bit(path, kEntryHeaderSize + 10);          // the image
    if (damage == "name-map") flip_bit(path, kEntryHeaderSize + 1000 + 6);   // the first expression
    if (damage == "empty-file") ASSERT_EQ(truncate(path.c_str(), 0), 0);

    KernelCache cache(config());
    cuabi::Counters counters;
    Layer layer;
    EXPECT_EQ(cache.lookup(make_key(1), &counters, &layer), nullptr);
    EXPECT_EQ(layer, Layer::None);
    EXPECT_EQ(counters.disk_cache_corrupt_recovered.load(), 1u);
    EXPECT_EQ(counters.disk_cache_misses.load(), 1u);
    EXPECT_EQ(cache.stats().disk_corrupt_recovered, 1u);
    EXPECT_NE(access(path.c_str(), F_OK), 0) << "the corrupt entry is still there";

    cache.store(make_key(1), make_image(1, 1000), nullptr);
    KernelCache fresh(config());
    auto found = fresh.lookup(make_key(1), nullptr, &layer);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(layer, Layer::Disk);
    EXPECT_TRUE(cache_test::same_image(*found, *make_image(1, 1000)));
}

INSTANTIATE_TEST_SUITE_P(Damage, CacheDiskCorruption,
                         ::testing::Values("truncation", "header", "payload", "name-map", "empty-file"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                             std::string name = info.param;
                             for (char& c : name)
                                 if (c == '-') c = '_';
                             return name;
                         });

TEST_F(CacheDisk, StoresEvictLeastRecentlyUsedEntriesToRespectTheCap) {
    uint64_t entry_bytes = encode_entry(make_key(0), *make_image(0, 2000)).size();
    uint64_t cap = entry_bytes * 10;
    KernelCache writer(config(cap));
    for (uint64_t i = 0; i < 5; ++i) writer.store(make_key(i), make_image(i, 2000), nullptr);
    for (uint64_t i = 0; i < 5; ++i) set_mtime(entry_path(i), 100 - static_cast<time_t>(i));  // 0 oldest
    KernelCache reader(config(cap));
    Layer layer;
    ASSERT_NE(reader.lookup(make_key(0), nullptr, &layer), nullptr);  // a hit makes 0 the newest

    cuabi::Counters counters;
    for (uint64_t i = 5; i < 11; ++i) writer.store(make_key(i), make_image(i, 2000), &counters);
    EXPECT_LE(total_bytes(entries()), cap);
    EXPECT_GT(counters.disk_cache_evictions.load(), 0u);
    EXPECT_EQ(writer.stats().disk_evictions, counters.disk_cache_evictions.load());
    EXPECT_EQ(access(entry_path(0).c_str(), F_OK), 0) << "the recently used entry was evicted";
    EXPECT_NE(access(entry_path(1).c_str(), F_OK), 0) << "the least recently used entry survived";
    EXPECT_EQ(access(entry_path(10).c_str(), F_OK), 0) << "the newest entry was evicted";
}

TEST_F(CacheDisk, PruneClearAndVerifyReportWhatTheyRemoved) {
    KernelCache cache(config());
    for (uint64_t i = 0; i < 6; ++i) cache.store(make_key(i), make_image(i, 1000), nullptr);
    uint64_t entry_bytes = encode_entry(make_key(0), *make_image(0, 1000)).size();

    flip_bit(entry_path(2), kEntryHeaderSize + 3);
    ASSERT_EQ(truncate(entry_path(4).c_str(), 100), 0);
    Removal removal;
    ASSERT_EQ(cache.verify(&removal), CUABI_SUCCESS);
    EXPECT_EQ(removal.checked_entries, 6u);
    EXPECT_EQ(removal.removed_entries, 2u);
    EXPECT_EQ(entries().size(), 4u);

    ASSERT_EQ(cache.prune(entry_bytes * 2, &removal), CUABI_SUCCESS);
    EXPECT_EQ(removal.removed_entries, 2u);
    EXPECT_EQ(removal.removed_bytes, entry_bytes * 2);
    EXPECT_LE(total_bytes(entries()), entry_bytes * 2);

    ASSERT_EQ(cache.clear(&removal), CUABI_SUCCESS);
    EXPECT_EQ(removal.removed_entries, 2u);
    EXPECT_TRUE(entries().empty());
    Layer layer;
    EXPECT_EQ(cache.lookup(make_key(0), nullptr, &layer), nullptr) << "clear() must empty memory too";
}

TEST_F(CacheDisk, TempFilesOfDeadWritersAreSweptCountedAndFreshOnesKept) {
    KernelCache cache(config());
    cache.store(make_key(1), make_image(1), nullptr);
    std::string shard = entry_path(1).substr(0, entry_path(1).rfind('/'));
    std::string stale = shard + "/.crashed.1.0.tmp", fresh = shard + "/.writing.2.0.tmp";
    std::ofstream(stale) << "partial";
    std::ofstream(fresh) << "partial";
    set_mtime(stale, 7200);
    Removal removal;
    ASSERT_EQ(cache.prune(UINT64_MAX, &removal), CUABI_SUCCESS);
    EXPECT_NE(access(stale.c_str(), F_OK), 0);
    EXPECT_EQ(access(fresh.c_str(), F_OK), 0);
    EXPECT_EQ(removal.temps_removed, 1u);
    EXPECT_EQ(cache.stats().disk_temp_files_removed, 1u);
    EXPECT_EQ(entries().size(), 1u) << "temp files are never counted as entries";
}

TEST_F(CacheDisk, AnUnreadableLedgerIsRebuiltFromAScanAndTheCapStillHolds) {
    uint64_t entry_bytes = encode_entry(make_key(0), *make_image(0, 2000)).size();
    {
        KernelCache big(config(UINT64_MAX));
        for (uint64_t i = 0; i < 8; ++i) big.store(make_key(i), make_image(i, 2000), nullptr);
    }
    std::ofstream(dir_ / "cache/lock", std::ios::trunc) << "garbage";
    KernelCache small(config(entry_bytes * 4));
    small.store(make_key(100), make_image(100, 2000), nullptr);
    EXPECT_LE(total_bytes(entries()), entry_bytes * 4);
    std::ifstream ledger(dir_ / "cache/lock");
    uint64_t recorded = 0;
    ledger >> recorded;
    EXPECT_EQ(recorded, total_bytes(entries()));
}

TEST_F(CacheDisk, ADisabledDiskCacheWritesNothingAndSaysWhy) {
    Config c = config();
    c.disk_disabled = true;
    c.disabled_reason = "disk cache disabled by CUABI_CACHE_DISABLE=1";
    KernelCache cache(c);
    cache.store(make_key(1), make_image(1), nullptr);
    Layer layer;
    EXPECT_NE(cache.lookup(make_key(1), nullptr, &layer), nullptr);
    EXPECT_EQ(layer, Layer::Memory);
    EXPECT_NE(access((dir_ / "cache").c_str(), F_OK), 0) << "the disabled cache created its directory";
    Stats stats = cache.stats();
    EXPECT_FALSE(stats.disk_enabled);
    EXPECT_EQ(stats.memory_hits, 1u);
    EXPECT_NE(cache.degradation_reason().find("CUABI_CACHE_DISABLE=1"), std::string::npos);
    Removal removal;
    EXPECT_EQ(cache.verify(&removal), CUABI_SUCCESS);
    EXPECT_EQ(cache.clear(&removal), CUABI_SUCCESS);
    EXPECT_EQ(cache.lookup(make_key(1), nullptr, &layer), nullptr);
}
