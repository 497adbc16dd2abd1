// Cache directories that must not be trusted are refused; disks that cannot take writes
// degrade the cache to memory. A store never fails either way.
#include <gtest/gtest.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "cache/disk_scan.hpp"
#include "cache/kernel_cache.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"
#include "core/error.hpp"

using namespace cuabi::cache;
using cache_test::make_image;
using cache_test::make_key;

namespace {

Config config_at(const std::string& directory) {
    Config config;
    config.directory = directory;
    return config;
}

bool ends_with_fix(const std::string& message) {
    size_t fix = message.find(". Fix: ");
    return fix != std::string::npos && message.size() > fix + 8;
}

// Stores and looks up in memory even though the directory is refused; returns the cache's state.
void expect_memory_only(KernelCache& cache, cuabi::Status expected_status, const std::string& reason_part) {
    cache.store(make_key(1), make_image(1), nullptr);
    Layer layer;
    auto found = cache.lookup(make_key(1), nullptr, &layer);
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(layer, Layer::Memory);
    Stats stats = cache.stats();
    EXPECT_FALSE(stats.disk_enabled);
    EXPECT_FALSE(stats.disk_writable);
    std::string reason = cache.degradation_reason();
    EXPECT_NE(reason.find(reason_part), std::string::npos) << reason;
    EXPECT_TRUE(ends_with_fix(reason)) << reason;

    EXPECT_EQ(cache.check_disk(), expected_status);
    EXPECT_NE(std::string(cuabi::last_error_message()).find(reason_part), std::string::npos)
        << cuabi::last_error_message();
    EXPECT_TRUE(ends_with_fix(cuabi::last_error_message())) << cuabi::last_error_message();
    Removal removal;
    EXPECT_EQ(cache.prune(0, &removal), expected_status);
    EXPECT_EQ(cache.verify(&removal), expected_status);
}

}  // namespace

TEST(CacheSafety, ANewDirectoryAndItsMissingParentsAreCreatedPrivate) {
    cache_test::TempDir dir;
    KernelCache cache(config_at(dir / "a/b/cache"));
    cache.store(make_key(1), make_image(1), nullptr);
    for (const char* level : {"a", "a/b", "a/b/cache"}) {
        struct stat info;
        ASSERT_EQ(stat((dir / level).c_str(), &info), 0) << level;
        EXPECT_EQ(info.st_mode & 0777, 0700u) << level;
    }
    EXPECT_TRUE(cache.stats().disk_enabled);
}

TEST(CacheSafety, AGroupWritableDirectoryIsRefused) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "cache").c_str(), 0700), 0);
    ASSERT_EQ(chmod((dir / "cache").c_str(), 0770), 0);
    KernelCache cache(config_at(dir / "cache"));
    expect_memory_only(cache, CUABI_ERROR_CACHE_UNSAFE, "has mode 770");
    EXPECT_NE(access((dir / "cache/kernels").c_str(), F_OK), 0) << "a refused directory was written";
}

TEST(CacheSafety, AWorldWritableDirectoryIsRefused) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "cache").c_str(), 0700), 0);
    ASSERT_EQ(chmod((dir / "cache").c_str(), 01777), 0);
    KernelCache cache(config_at(dir / "cache"));
    expect_memory_only(cache, CUABI_ERROR_CACHE_UNSAFE, "has mode 777");
}

TEST(CacheSafety, ADirectoryOwnedByAnotherUserIsRefused) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "cache").c_str(), 0700), 0);
    ASSERT_EQ(chown((dir / "cache").c_str(), 65534, 65534), 0);
    KernelCache cache(config_at(dir / "cache"));
    expect_memory_only(cache, CUABI_ERROR_CACHE_UNSAFE, "is owned by uid 65534");
}

TEST(CacheSafety, ADirectoryThatCannotBeCreatedDegradesWithAnIoReason) {
    cache_test::TempDir dir;
    std::ofstream(dir / "file") << "not a directory";
    KernelCache cache(config_at(dir / "file/cache"));
    expect_memory_only(cache, CUABI_ERROR_CACHE_IO, "Not a directory");
}

// Root ignores file permissions, so the helper drops to uid 65534 ("nobody") before using a
// directory that nobody owns and nobody may write: a genuinely read-only cache. Without root
// the test user meets the same read-only directory directly.
TEST(CacheSafety, AReadOnlyDirectoryServesItsEntriesAndStoresNeverFail) {
    cache_test::TempDir dir;
    std::string cache = dir / "cache";
    bool root = geteuid() == 0;
    std::vector<std::string> drop = root ? std::vector<std::string>{"--as-nobody"} : std::vector<std::string>{};
    if (root) {  // let nobody reach a cache directory of its own
        ASSERT_EQ(chmod(dir.path().c_str(), 0711), 0);
        ASSERT_EQ(mkdir(cache.c_str(), 0700), 0);
        ASSERT_EQ(chown(cache.c_str(), 65534, 65534), 0);
    }
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + cache};

    auto args = drop;
    args.insert(args.end(), {"store", "0", "3"});
    cache_test::HelperResult stored = cache_test::run_helper(args, env);
    ASSERT_EQ(stored.exit_code, 0) << stored.output;
    ASSERT_EQ(stored.number("disk_stores"), 3u) << stored.output;

    for (const char* path : {"", "/kernels"}) ASSERT_EQ(chmod((cache + path).c_str(), 0500), 0);
    for (const auto& shard : {std::string("/kernels/") + make_key(0).hex().substr(0, 2),
                              std::string("/kernels/") + make_key(1).hex().substr(0, 2),
                              std::string("/kernels/") + make_key(2).hex().substr(0, 2)})
        chmod((cache + shard).c_str(), 0500);

    args = drop;
    args.insert(args.end(), {"lookup", "0", "3"});
    cache_test::HelperResult read = cache_test::run_helper(args, env);
    ASSERT_EQ(read.exit_code, 0) << read.output;
    EXPECT_EQ(read.number("found_disk"), 3u) << read.output;
    EXPECT_EQ(read.number("wrong"), 0u);

    args = drop;
    args.insert(args.end(), {"store", "10", "2"});
    cache_test::HelperResult refused = cache_test::run_helper(args, env);
    ASSERT_EQ(refused.exit_code, 0) << refused.output;
    EXPECT_EQ(refused.number("disk_enabled"), 1u);
    EXPECT_EQ(refused.number("disk_writable"), 0u);
    EXPECT_EQ(refused.number("disk_store_failures"), 1u) << "writes must stop after the first failure";
    EXPECT_EQ(refused.number("disk_stores"), 0u);
    EXPECT_NE(refused.values["reason"].find("Permission denied"), std::string::npos) << refused.output;
    EXPECT_NE(refused.values["reason"].find("Fix: "), std::string::npos) << refused.output;
}

// A full disk, simulated by RLIMIT_FSIZE in the helper: writes past the limit fail with EFBIG
// as they would with ENOSPC, the cache keeps entries in memory, and no partial file stays.
TEST(CacheSafety, AFullDiskDegradesToMemoryAndLeavesNoPartialFiles) {
    cache_test::TempDir dir;
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + (dir / "cache")};
    cache_test::HelperResult full =
        cache_test::run_helper({"--file-size-limit", "4096", "store", "0", "3", "20000"}, env);
    ASSERT_EQ(full.exit_code, 0) << full.output;
    EXPECT_EQ(full.number("disk_stores"), 0u);
    EXPECT_EQ(full.number("disk_store_failures"), 1u);
    EXPECT_EQ(full.number("disk_writable"), 0u);
    EXPECT_EQ(full.number("disk_entries"), 0u);
    EXPECT_NE(full.values["reason"].find("File too large"), std::string::npos) << full.output;
    EXPECT_NE(full.values["reason"].find("free disk space"), std::string::npos) << full.output;

    EXPECT_TRUE(cache_test::scan(dir / "cache").empty());
    std::string shard = dir / ("cache/kernels/" + make_key(0).hex().substr(0, 2));
    DIR* listing = opendir(shard.c_str());
    int files = 0;
    while (listing != nullptr && readdir(listing) != nullptr) ++files;
    if (listing != nullptr) closedir(listing);
    EXPECT_LE(files, 2) << "a temp file was left in " << shard;  // "." and ".." only
}
