// The cache directory under attack, each case a reproduction that once worked: a directory
// swapped after the check, links planted as the lock, a shard or an entry, FIFOs, sparse and
// forged entries, a directory where an entry belongs, a lock held by a stopped process. Every
// one must cost at most a miss and a compile -- never foreign code served, a file outside the
// cache touched, a hang, an abort, or the disk switched off.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include "cache/cache_dir.hpp"
#include "cache/entry_format.hpp"
#include "cache/kernel_cache.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"

#define XXH_INLINE_ALL
#include "xxhash.h"

using namespace cuabi::cache;
using cache_test::make_image;
using cache_test::make_key;

namespace {

std::string read_file(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream(path, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

bool exists(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0;
}

mode_t type_of(const std::string& path) {
    struct stat info;
    return lstat(path.c_str(), &info) == 0 ? (info.st_mode & S_IFMT) : 0;
}

// An entry whose checksum is right but whose contents no writer produces: `patch` edits the
// encoded bytes, then the checksum is recomputed as a forger would.
std::vector<uint8_t> forged_entry(const Key& key, const CachedImage& image,
                                  void (*patch)(std::vector<uint8_t>*) = nullptr) {
    std::vector<uint8_t> bytes = encode_entry(key, image);
    if (patch != nullptr) patch(&bytes);
    XXH3_state_t state;
    XXH3_64bits_reset(&state);
    XXH3_64bits_update(&state, bytes.data(), 96);
    XXH3_64bits_update(&state, bytes.data() + kEntryHeaderSize, bytes.size() - kEntryHeaderSize);
    uint64_t sum = XXH3_64bits_digest(&state);
    for (int i = 0; i < 8; ++i) bytes[96 + i] = static_cast<uint8_t>(sum >> (8 * i));
    return bytes;
}

class CacheAttack : public ::testing::Test {
protected:
    Config config(uint64_t max_bytes = kDefaultDiskMaxBytes) const {
        Config c;
        c.directory = cache();
        c.disk_max_bytes = max_bytes;
        c.lock_timeout_ms = 300;
        return c;
    }
    std::string cache() const { return dir_ / "cache"; }
    std::string entry(uint64_t index) const { return cache_test::entry_path(cache(), make_key(index)); }
    std::string shard(uint64_t index) const { return entry(index).substr(0, entry(index).rfind('/')); }

    // Looks `index` up in a fresh cache (nothing in memory): the disk decides.
    std::shared_ptr<const CachedImage> fresh_lookup(uint64_t index, uint64_t* corrupt = nullptr) {
        KernelCache reader(config());
        Layer layer;
        auto found = reader.lookup(make_key(index), nullptr, &layer);
        if (corrupt != nullptr) *corrupt = reader.stats().disk_corrupt_recovered;
        return found;
    }

    cache_test::TempDir dir_;
};

}  // namespace

TEST_F(CacheAttack, ADirectorySwappedInAfterTheCheckIsNeverSeen) {
    KernelCache victim(config());
    victim.store(make_key(1), make_image(1), nullptr);  // the directory is opened and checked now

    // Someone who can write the parent swaps in their own directory: a forged, checksum-valid
    // entry for key 2 and a lock that points at a file they want overwritten.
    ASSERT_EQ(rename(cache().c_str(), (dir_ / "original").c_str()), 0);
    ASSERT_EQ(mkdir(cache().c_str(), 0700), 0);
    {
        KernelCache forger(config());
        auto foreign = make_image(2);
        foreign->log = "foreign code";
        forger.store(make_key(2), foreign, nullptr);
    }
    write_file(dir_ / "precious", {'k', 'e', 'e', 'p'});
    ASSERT_EQ(unlink((cache() + "/lock").c_str()), 0);
    ASSERT_EQ(symlink((dir_ / "precious").c_str(), (cache() + "/lock").c_str()), 0);

    Layer layer;
    EXPECT_EQ(victim.lookup(make_key(2), nullptr, &layer), nullptr) << "the forged entry was served";
    victim.store(make_key(3), make_image(3), nullptr);
    EXPECT_EQ(read_file(dir_ / "precious"), "keep") << "a store wrote through the swapped-in lock link";
    EXPECT_TRUE(exists(cache_test::entry_path(dir_ / "original", make_key(3)))) << "the store left the checked directory";
    EXPECT_FALSE(exists(entry(3)));
    EXPECT_EQ(victim.stats().disk_stores, 2u);
}

TEST_F(CacheAttack, ALockThatIsALinkIsReplacedAndItsTargetUntouched) {
    ASSERT_EQ(mkdir(cache().c_str(), 0700), 0);
    write_file(dir_ / "precious", {'k', 'e', 'e', 'p'});
    ASSERT_EQ(symlink((dir_ / "precious").c_str(), (cache() + "/lock").c_str()), 0);
    KernelCache cache_(config());
    cache_.store(make_key(1), make_image(1), nullptr);
    EXPECT_EQ(read_file(dir_ / "precious"), "keep");
    EXPECT_EQ(type_of(cache() + "/lock"), static_cast<mode_t>(S_IFREG));
    EXPECT_EQ(cache_.stats().disk_stores, 1u);
    EXPECT_NE(fresh_lookup(1), nullptr);
}

TEST_F(CacheAttack, ALockThatIsAHardLinkToAnotherFileIsReplacedAndTheFileUntouched) {
    ASSERT_EQ(mkdir(cache().c_str(), 0700), 0);
    write_file(dir_ / "precious", {'k', 'e', 'e', 'p'});
    ASSERT_EQ(link((dir_ / "precious").c_str(), (cache() + "/lock").c_str()), 0);
    KernelCache cache_(config());
    cache_.store(make_key(1), make_image(1), nullptr);
    EXPECT_EQ(read_file(dir_ / "precious"), "keep");
    EXPECT_EQ(cache_.stats().disk_stores, 1u);
}

TEST_F(CacheAttack, ClearNeverFollowsAShardLinkOutOfTheDirectory) {
    KernelCache cache_(config());
    cache_.store(make_key(1), make_image(1), nullptr);
    // Elsewhere: files named like entries, which a followed link would expose to clear().
    std::string elsewhere = dir_ / "elsewhere";
    ASSERT_EQ(mkdir(elsewhere.c_str(), 0700), 0);
    std::string bait = elsewhere + "/" + entry_file_name(make_key(7));
    write_file(bait, encode_entry(make_key(7), *make_image(7)));
    write_file(elsewhere + "/notes.txt", {'n'});
    std::string link_shard = cache() + "/kernels/" + shard_name(make_key(7));
    if (!exists(link_shard)) {
        ASSERT_EQ(symlink(elsewhere.c_str(), link_shard.c_str()), 0);
    } else {
        GTEST_SKIP() << "keys 1 and 7 share a shard";
    }
    Removal removal;
    ASSERT_EQ(cache_.clear(&removal), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_TRUE(exists(bait)) << "clear() deleted a file outside the cache directory";
    EXPECT_TRUE(exists(elsewhere + "/notes.txt"));
    EXPECT_FALSE(exists(link_shard)) << "the link itself does not belong in the cache";
    EXPECT_FALSE(exists(entry(1)));
    // A lookup through the link is never made either.
    ASSERT_EQ(symlink(elsewhere.c_str(), link_shard.c_str()), 0);
    EXPECT_EQ(fresh_lookup(7), nullptr);
    EXPECT_TRUE(exists(bait));
}

TEST_F(CacheAttack, AFifoWhereAnEntryBelongsNeitherBlocksNorStays) {
    KernelCache writer(config());
    writer.store(make_key(1), make_image(1), nullptr);
    ASSERT_EQ(unlink(entry(1).c_str()), 0);
    ASSERT_EQ(mkfifo(entry(1).c_str(), 0600), 0);

    auto start = std::chrono::steady_clock::now();
    uint64_t corrupt = 0;
    EXPECT_EQ(fresh_lookup(1, &corrupt), nullptr);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5)) << "the FIFO blocked the lookup";
    EXPECT_EQ(corrupt, 1u);
    EXPECT_FALSE(exists(entry(1))) << "the FIFO was left to block the next lookup";

    KernelCache again(config());
    again.store(make_key(1), make_image(1), nullptr);
    EXPECT_EQ(again.stats().disk_stores, 1u);
    EXPECT_NE(fresh_lookup(1), nullptr);
}

TEST_F(CacheAttack, AnEntryThatIsALinkToAFifoIsRemovedNotFollowed) {
    KernelCache writer(config());
    writer.store(make_key(1), make_image(1), nullptr);
    ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
    ASSERT_EQ(unlink(entry(1).c_str()), 0);
    ASSERT_EQ(symlink((dir_ / "fifo").c_str(), entry(1).c_str()), 0);
    uint64_t corrupt = 0;
    EXPECT_EQ(fresh_lookup(1, &corrupt), nullptr);
    EXPECT_EQ(corrupt, 1u);
    EXPECT_FALSE(exists(entry(1)));
    EXPECT_EQ(type_of(dir_ / "fifo"), static_cast<mode_t>(S_IFIFO)) << "the link's target is not cuabi's";
}

TEST_F(CacheAttack, VerifyAndClearRemoveFifosInsteadOfSkippingThem) {
    KernelCache cache_(config());
    cache_.store(make_key(1), make_image(1), nullptr);
    cache_.store(make_key(2), make_image(2), nullptr);
    ASSERT_EQ(unlink(entry(2).c_str()), 0);
    ASSERT_EQ(mkfifo(entry(2).c_str(), 0600), 0);
    Removal removal;
    ASSERT_EQ(cache_.verify(&removal), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_EQ(removal.checked_entries, 1u);
    EXPECT_EQ(removal.removed_entries, 1u);
    EXPECT_FALSE(exists(entry(2)));

    ASSERT_EQ(mkfifo(entry(2).c_str(), 0600), 0);
    ASSERT_EQ(cache_.clear(&removal), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_FALSE(exists(entry(2)));
    EXPECT_FALSE(exists(entry(1)));
}

TEST_F(CacheAttack, ASparseHundredGibibyteEntryIsRemovedWithoutBeingRead) {
    Config huge = config(UINT64_MAX);  // not the cap: the entry bound protects
    KernelCache writer(huge);
    writer.store(make_key(1), make_image(1), nullptr);
    writer.store(make_key(2), make_image(2), nullptr);
    ASSERT_EQ(truncate(entry(1).c_str(), off_t(100) << 30), 0);
    KernelCache reader(huge);
    Layer layer;
    EXPECT_EQ(reader.lookup(make_key(1), nullptr, &layer), nullptr);
    EXPECT_EQ(reader.stats().disk_corrupt_recovered, 1u);
    EXPECT_FALSE(exists(entry(1)));

    ASSERT_EQ(truncate(entry(2).c_str(), off_t(100) << 30), 0);
    Removal removal;
    ASSERT_EQ(reader.verify(&removal), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_EQ(removal.removed_entries, 1u);
    EXPECT_FALSE(exists(entry(2)));
}

TEST_F(CacheAttack, ForgedEntriesWithValidChecksumsAreRefused) {
    struct Forgery {
        const char* what;
        const char* reason;
        std::vector<uint8_t> bytes;
    };
    CachedImage empty = *make_image(1);
    empty.image.clear();
    CachedImage kind99 = *make_image(1);
    kind99.image_kind = 99;
    CachedImage not_elf = *make_image(1);
    not_elf.image[0] = 'X';
    CachedImage bad_target = *make_image(1);
    bad_target.target = "sm_90/../../x";
    std::vector<Forgery> forgeries = {
        {"a 0-byte image", "empty", forged_entry(make_key(1), empty)},
        {"image kind 99", "kind 99", forged_entry(make_key(1), kind99)},
        {"a CUBIN that is not ELF", "not those of a CUBIN", forged_entry(make_key(1), not_elf)},
        {"a target that is a path", "not a GPU architecture", forged_entry(make_key(1), bad_target)},
        {"a name count of 2^32-1", "cannot fit",
         forged_entry(make_key(1), *make_image(1), [](std::vector<uint8_t>* bytes) {
             for (int i = 0; i < 4; ++i) (*bytes)[20 + i] = 0xff;
         })},
    };
    for (const Forgery& forgery : forgeries) {
        SCOPED_TRACE(forgery.what);
        CachedImage decoded;
        std::string why;
        EXPECT_FALSE(decode_entry(make_key(1), forgery.bytes.data(), forgery.bytes.size(), &decoded, &why));
        EXPECT_NE(why.find(forgery.reason), std::string::npos) << why;

        KernelCache writer(config());
        writer.store(make_key(1), make_image(1), nullptr);
        write_file(entry(1), forgery.bytes);
        uint64_t corrupt = 0;
        EXPECT_EQ(fresh_lookup(1, &corrupt), nullptr);
        EXPECT_EQ(corrupt, 1u);
        write_file(entry(1), forgery.bytes);
        Removal removal;
        EXPECT_EQ(writer.verify(&removal), CUABI_SUCCESS);
        EXPECT_EQ(removal.removed_entries, 1u);
    }
}

TEST_F(CacheAttack, ADirectoryWhereAnEntryBelongsIsRemovedAndTheDiskStaysOn) {
    ASSERT_EQ(mkdir(cache().c_str(), 0700), 0);
    KernelCache first(config());
    first.store(make_key(0), make_image(0), nullptr);  // creates kernels/
    std::string shard_path = shard(1);
    mkdir((cache() + "/kernels").c_str(), 0700);
    mkdir(shard_path.c_str(), 0700);
    ASSERT_EQ(mkdir(entry(1).c_str(), 0700), 0);
    write_file(entry(1) + "/inside", {'x'});

    KernelCache cache_(config());
    cache_.store(make_key(1), make_image(1), nullptr);
    Stats stats = cache_.stats();
    EXPECT_EQ(stats.disk_store_failures, 0u) << cache_.degradation_reason();
    EXPECT_EQ(stats.disk_stores, 1u);
    EXPECT_TRUE(stats.disk_writable);
    EXPECT_EQ(type_of(entry(1)), static_cast<mode_t>(S_IFREG));
    EXPECT_NE(fresh_lookup(1), nullptr);
}

TEST_F(CacheAttack, AFileWhereTheShardDirectoryBelongsIsReplaced) {
    KernelCache first(config());
    first.store(make_key(0), make_image(0), nullptr);
    if (shard(0) == shard(1)) GTEST_SKIP() << "keys 0 and 1 share a shard";
    write_file(shard(1), {'x'});
    KernelCache cache_(config());
    uint64_t corrupt = 0;
    EXPECT_EQ(fresh_lookup(1, &corrupt), nullptr);
    EXPECT_EQ(corrupt, 1u);
    cache_.store(make_key(1), make_image(1), nullptr);
    EXPECT_EQ(cache_.stats().disk_stores, 1u);
    EXPECT_NE(fresh_lookup(1), nullptr);
}

// A process holds the lock and is stopped (SIGSTOP): others wait a bounded time, then go on from
// memory for that operation, count it and say why; once the holder is gone the disk works again.
TEST_F(CacheAttack, ALockHeldByAStoppedProcessCostsABoundedWaitThenMemoryOnly) {
    ASSERT_EQ(mkdir(cache().c_str(), 0700), 0);
    int ready[2];
    ASSERT_EQ(pipe(ready), 0);
    pid_t holder = fork();
    ASSERT_GE(holder, 0);
    if (holder == 0) {
        int fd = open((cache() + "/lock").c_str(), O_RDWR | O_CREAT, 0600);
        if (fd < 0 || flock(fd, LOCK_EX) != 0) _exit(1);
        char byte = 1;
        if (write(ready[1], &byte, 1) != 1) _exit(1);
        raise(SIGSTOP);
        _exit(0);
    }
    close(ready[1]);
    char byte = 0;
    ASSERT_EQ(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    int status = 0;
    ASSERT_EQ(waitpid(holder, &status, WUNTRACED), holder);
    ASSERT_TRUE(WIFSTOPPED(status));

    KernelCache cache_(config());
    auto start = std::chrono::steady_clock::now();
    cache_.store(make_key(1), make_image(1), nullptr);
    auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, std::chrono::milliseconds(250));
    EXPECT_LT(waited, std::chrono::seconds(3));
    Stats stats = cache_.stats();
    EXPECT_EQ(stats.disk_lock_timeouts, 1u);
    EXPECT_EQ(stats.disk_stores, 0u);
    EXPECT_EQ(stats.disk_store_failures, 0u) << "a busy lock is not a failing disk";
    EXPECT_TRUE(stats.disk_writable);
    EXPECT_NE(cache_.degradation_reason().find("held by another process"), std::string::npos)
        << cache_.degradation_reason();
    Layer layer;
    EXPECT_NE(cache_.lookup(make_key(1), nullptr, &layer), nullptr);
    EXPECT_EQ(layer, Layer::Memory);
    Removal removal;
    EXPECT_EQ(cache_.prune(0, &removal), CUABI_ERROR_TIMEOUT);
    EXPECT_NE(std::string(cuabi::last_error_message()).find("Fix: "), std::string::npos);
    EXPECT_EQ(cache_.stats().disk_lock_timeouts, 2u);

    kill(holder, SIGKILL);
    waitpid(holder, &status, 0);
    cache_.store(make_key(2), make_image(2), nullptr);
    EXPECT_EQ(cache_.stats().disk_stores, 1u);
    EXPECT_EQ(cache_.degradation_reason(), "");
}

TEST_F(CacheAttack, ADirtyLedgerLeftByAKilledWriterIsRebuiltFromAScan) {
    KernelCache cache_(config());
    for (uint64_t i = 0; i < 4; ++i) cache_.store(make_key(i), make_image(i), nullptr);
    std::ofstream(cache() + "/lock", std::ios::trunc) << "dirty\n";
    cache_.store(make_key(9), make_image(9), nullptr);
    uint64_t recorded = 0;
    std::ifstream(cache() + "/lock") >> recorded;
    EXPECT_EQ(recorded, total_bytes(cache_test::scan(cache())));
}

TEST(CacheParentChain, TheStrictModesPolicy) {
    struct stat info {};
    info.st_mode = S_IFDIR | 0755;
    info.st_uid = 0;
    EXPECT_TRUE(check_parent(info, "/home", 1000).ok()) << "root's directory";
    info.st_uid = 1000;
    EXPECT_TRUE(check_parent(info, "/home/me", 1000).ok()) << "our own directory";
    info.st_uid = 1001;
    Problem other = check_parent(info, "/home/them", 1000);
    EXPECT_EQ(other.status, CUABI_ERROR_CACHE_UNSAFE);
    EXPECT_NE(other.what.find("owned by uid 1001"), std::string::npos) << other.what;
    info.st_uid = 0;
    info.st_mode = S_IFDIR | 0777;
    EXPECT_EQ(check_parent(info, "/shared", 1000).status, CUABI_ERROR_CACHE_UNSAFE) << "writable, not sticky";
    info.st_mode = S_IFDIR | 01777;
    EXPECT_TRUE(check_parent(info, "/tmp", 1000).ok()) << "sticky, like /tmp";
    info.st_mode = S_IFDIR | 0775;
    EXPECT_EQ(check_parent(info, "/group", 1000).status, CUABI_ERROR_CACHE_UNSAFE);

    info.st_mode = S_IFDIR | 0700;
    info.st_uid = 1000;
    EXPECT_TRUE(check_private(info, "/home/me/.cache/cuabi", 1000).ok());
    info.st_mode = S_IFDIR | 01777;
    EXPECT_EQ(check_private(info, "/tmp", 1000).status, CUABI_ERROR_CACHE_UNSAFE) << "sticky is no excuse here";
}

TEST(CacheParentChain, ACacheBelowAWorldWritableParentIsRefusedAndBelowAStickyOneAccepted) {
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "open").c_str(), 0700), 0);
    ASSERT_EQ(chmod((dir / "open").c_str(), 0777), 0);
    Config config;
    config.directory = dir / "open/cache";
    KernelCache refused(config);
    EXPECT_EQ(refused.check_disk(), CUABI_ERROR_CACHE_UNSAFE);
    std::string message = cuabi::last_error_message();
    EXPECT_NE(message.find("without the sticky bit"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;

    ASSERT_EQ(chmod((dir / "open").c_str(), 01777), 0);
    KernelCache accepted(config);
    EXPECT_EQ(accepted.check_disk(), CUABI_SUCCESS) << cuabi::last_error_message();
}

TEST(CacheParentChain, AParentOwnedByAnotherUserIsRefused) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root to give a directory to another user";
    cache_test::TempDir dir;
    ASSERT_EQ(mkdir((dir / "theirs").c_str(), 0755), 0);
    ASSERT_EQ(chown((dir / "theirs").c_str(), 65534, 65534), 0);
    ASSERT_EQ(mkdir((dir / "theirs/cache").c_str(), 0700), 0);
    Config config;
    config.directory = dir / "theirs/cache";
    KernelCache refused(config);
    EXPECT_EQ(refused.check_disk(), CUABI_ERROR_CACHE_UNSAFE);
    EXPECT_NE(std::string(cuabi::last_error_message()).find("owned by uid 65534"), std::string::npos)
        << cuabi::last_error_message();
}
