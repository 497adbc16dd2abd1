// Many processes share one small cache directory while the test kills them with SIGKILL at
// random moments -- mid-read, mid-write, holding the lock, between a rename and the ledger. For a
// bounded time (CUABI_STRESS_SECONDS, default 60) it checks the invariants after every kill and
// at the end: no process was ever served a wrong image, the cap holds, the ledger equals the
// bytes on disk once a lock holder has looked at it, and every entry left on disk is intact.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <thread>

#include "cache/directory_lock.hpp"
#include "cache/kernel_cache.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"

using namespace cuabi::cache;

namespace {

int stress_seconds() {
    const char* text = std::getenv("CUABI_STRESS_SECONDS");
    int seconds = text != nullptr ? std::atoi(text) : 0;
    return seconds > 0 ? seconds : 60;
}

struct Churner {
    pid_t pid = -1;
    int fd = -1;
};

// The ledger and the bytes on disk, both read under the lock (so no writer moves in between);
// false when the ledger is dirty or unreadable.
bool read_ledger(const std::string& directory, uint64_t* bytes, uint64_t* on_disk) {
    auto store = cache_test::open_store(directory, UINT64_MAX);
    if (store == nullptr) return false;
    DirectoryLock lock(store->fd(), directory, 10000);
    if (!lock.ok() || !lock.read_ledger(bytes)) return false;
    *on_disk = total_bytes(cache_test::scan(directory));
    return true;
}

// The bytes of the entries on disk, counted under the lock: an unlocked scan races with writers
// (one can evict from a shard the scan has passed and add to one it has not reached, so the scan
// counts both); under the lock no writer is between its eviction and its rename. False when the
// lock could not be had.
bool locked_disk_bytes(const std::string& directory, uint64_t* on_disk) {
    auto store = cache_test::open_store(directory, UINT64_MAX);
    if (store == nullptr) return false;
    DirectoryLock lock(store->fd(), directory, 10000);
    if (!lock.ok()) return false;
    *on_disk = total_bytes(cache_test::scan(directory));
    return true;
}

}  // namespace

TEST(CacheStress, KilledProcessesNeverCauseWrongImagesTheCapHoldsAndTheLedgerIsExact) {
    cache_test::TempDir dir;
    const std::string cache = dir / "cache";
    const uint64_t cap = 96 * 1024;  // about 40 entries of ~2.6 KB: a third of the 120 keys fit
    std::vector<std::string> env = {"CUABI_CACHE_DIR=" + cache, "CUABI_CACHE_MAX_BYTES=" + std::to_string(cap),
                                    "CUABI_CACHE_MEMORY_MAX_BYTES=1",  // nearly every lookup reads the disk
                                    "CUABI_CACHE_LOCK_TIMEOUT_MS=5000", "CUABI_CACHE_DISABLE="};
    std::mt19937 random(12345);
    unsigned seed = 1;
    auto start_churner = [&]() {
        Churner churner;
        churner.pid = cache_test::start_helper({"churn", std::to_string(seed++), "3", "120", "2500"}, env, &churner.fd);
        return churner;
    };
    std::vector<Churner> running;
    // A failed ASSERT returns early: the churners still running are killed and reaped then, or
    // they would outlive the test (and hold ctest's output pipe open until they end).
    struct KillOnExit {
        std::vector<Churner>& churners;
        ~KillOnExit() {
            for (Churner& churner : churners) {
                if (churner.pid <= 0) continue;
                kill(churner.pid, SIGKILL);
                cache_test::finish_helper(churner.pid, churner.fd);
            }
        }
    } kill_on_exit{running};
    for (int i = 0; i < 6; ++i) running.push_back(start_churner());

    uint64_t kills = 0, ledger_checks = 0, cap_checks = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(stress_seconds());
    while (std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20 + random() % 120));
        Churner& victim = running[random() % running.size()];
        kill(victim.pid, SIGKILL);
        cache_test::HelperResult ended = cache_test::finish_helper(victim.pid, victim.fd);
        ASSERT_EQ(ended.exit_code, -1) << "a process stopped by itself: " << ended.output;  // -1: killed
        ++kills;
        victim = start_churner();
        uint64_t ledger = 0, on_disk = 0;
        if (kills % 10 == 0 && read_ledger(cache, &ledger, &on_disk)) {
            ++ledger_checks;
            EXPECT_EQ(ledger, on_disk) << "a clean ledger disagrees with the disk";
        }
        uint64_t bytes = 0;
        if (locked_disk_bytes(cache, &bytes)) {
            ++cap_checks;
            ASSERT_LE(bytes, cap) << "the cap was broken after " << kills << " kills";
        }
    }
    for (Churner& churner : running) {
        kill(churner.pid, SIGKILL);
        cache_test::HelperResult ended = cache_test::finish_helper(churner.pid, churner.fd);
        churner.pid = -1;
        EXPECT_EQ(ended.exit_code, -1) << ended.output;
    }
    EXPECT_GE(kills, 50u);
    EXPECT_GT(ledger_checks, 0u) << "the ledger was never clean when looked at";
    EXPECT_GE(cap_checks, kills / 2) << "the lock was rarely free to check the cap";

    std::vector<ScannedEntry> entries = cache_test::scan(cache);
    EXPECT_FALSE(entries.empty());
    EXPECT_LE(total_bytes(entries), cap);
    uint64_t ledger = 0, on_disk = 0;
    if (read_ledger(cache, &ledger, &on_disk)) EXPECT_EQ(ledger, on_disk);
    // The next lock holder repairs a ledger a killed writer left dirty; then it is exact.
    Config config;
    config.directory = cache;
    config.disk_max_bytes = cap;
    KernelCache last(config);
    last.store(cache_test::make_key(1000), cache_test::make_image(1000, 2500), nullptr);
    ASSERT_TRUE(read_ledger(cache, &ledger, &on_disk));
    EXPECT_EQ(ledger, on_disk);
    EXPECT_LE(ledger, cap);
    Removal removal;
    ASSERT_EQ(last.verify(&removal), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_EQ(removal.removed_entries, 0u) << "a damaged entry was left on disk";
    EXPECT_GT(removal.checked_entries, 0u);
    std::printf("[stress] %llu kills, %llu clean-ledger checks, %zu entries (%llu bytes) left\n",
                (unsigned long long)kills, (unsigned long long)ledger_checks, entries.size(),
                (unsigned long long)total_bytes(entries));
}
