// The cache across real processes: a fresh process hits the disk, and many processes with many
// threads share one small directory without a failure or a wrong answer.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include "cache/disk_scan.hpp"
#include "cache/kernel_cache.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"

using namespace cuabi::cache;

TEST(CacheProcess, AFreshProcessFindsEveryEntryOnDiskWithItsNameMap) {
    cache_test::TempDir dir;
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + (dir / "cache")};
    cache_test::HelperResult first = cache_test::run_helper({"store", "0", "5"}, env);
    ASSERT_EQ(first.exit_code, 0) << first.output;
    ASSERT_EQ(first.number("disk_stores"), 5u) << first.output;

    cache_test::HelperResult second = cache_test::run_helper({"lookup", "0", "5"}, env);
    ASSERT_EQ(second.exit_code, 0) << second.output;
    EXPECT_EQ(second.number("found_disk"), 5u) << second.output;
    EXPECT_EQ(second.number("wrong"), 0u) << "contents (image, names, log, target) differ";
    EXPECT_EQ(second.number("memory_hits"), 0u);
    EXPECT_EQ(second.number("disk_hits"), 5u);
    EXPECT_EQ(second.number("disk_misses"), 0u);
    EXPECT_EQ(second.number("disk_stores"), 0u);
}

TEST(CacheProcess, ManyProcessesAndThreadsShareOneDirectoryUnderASmallCap) {
    cache_test::TempDir dir;
    const uint64_t cap = 48 * 1024;  // 40 keys of ~2.5 KB: about twice what fits
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUABI_CACHE_MAX_BYTES=" + std::to_string(cap)};
    std::vector<std::pair<pid_t, int>> running;
    for (int process = 0; process < 4; ++process) {
        int fd = -1;
        pid_t pid = cache_test::start_helper({"stress", std::to_string(process + 1), "150", "4", "40", "2500"}, env, &fd);
        ASSERT_GT(pid, 0);
        running.emplace_back(pid, fd);
    }
    uint64_t hits = 0;
    for (auto& child : running) {
        cache_test::HelperResult result = cache_test::finish_helper(child.first, child.second);
        ASSERT_EQ(result.exit_code, 0) << result.output;
        EXPECT_EQ(result.number("wrong"), 0u) << result.output;
        EXPECT_EQ(result.number("disk_store_failures"), 0u) << result.output;
        EXPECT_EQ(result.number("disk_writable"), 1u) << result.output;
        hits += result.number("hits");
    }
    EXPECT_GT(hits, 0u);

    std::vector<ScannedEntry> entries = cache_test::scan(dir / "cache");
    EXPECT_LE(total_bytes(entries), cap);
    EXPECT_FALSE(entries.empty());
    auto store = cache_test::open_store(dir / "cache", cap);
    ASSERT_NE(store, nullptr);
    Removal removal;
    ASSERT_TRUE(store->verify(&removal).ok());
    EXPECT_EQ(removal.removed_entries, 0u) << "a corrupt entry was left on disk";
    EXPECT_EQ(removal.checked_entries, entries.size());
}

TEST(CacheProcess, ThePublicApiReportsAHealthyDirectory) {
    cache_test::TempDir dir;
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + (dir / "cache"), "CUABI_CACHE_DISABLE="};
    ASSERT_EQ(cache_test::run_helper({"store", "0", "2"}, env).exit_code, 0);
    cache_test::HelperResult api = cache_test::run_helper({"api"}, env);
    ASSERT_EQ(api.exit_code, 0) << api.output;
    EXPECT_EQ(api.number("stats_status"), 0u);
    EXPECT_EQ(api.number("disk_enabled"), 1u);
    EXPECT_EQ(api.number("disk_entries"), 2u);
    EXPECT_EQ(api.values["directory"], dir / "cache");
    EXPECT_EQ(api.values["reason"], "");
    EXPECT_EQ(api.number("verify_status"), 0u);
    EXPECT_EQ(api.number("verify_checked"), 2u);
}

TEST(CacheProcess, ThePublicApiRefusesAnUnsafeDirectoryWithAFix) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "cache").c_str(), 0700), 0);
    ASSERT_EQ(chmod((dir / "cache").c_str(), 0775), 0);
    cache_test::HelperResult api = cache_test::run_helper({"api"}, {"CUABI_CACHE_DIR=" + (dir / "cache")});
    ASSERT_EQ(api.exit_code, 0) << api.output;
    EXPECT_EQ(api.number("stats_status"), 0u);
    EXPECT_EQ(api.number("disk_enabled"), 0u);
    EXPECT_EQ(api.number("verify_status"), static_cast<uint64_t>(CUABI_ERROR_CACHE_UNSAFE));
    EXPECT_NE(api.values["message"].find("Fix: run 'chmod 700"), std::string::npos) << api.output;
    EXPECT_NE(api.values["reason"].find("mode 775"), std::string::npos) << api.output;
}
