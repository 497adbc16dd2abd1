// Read-only layers and bundles through KernelCache, on real files: a layer serves entries after
// the disk misses, is never written, locked or pruned (its files are compared byte for byte,
// inode and mtime before and after, and the descriptors it keeps are open read-only), refuses a
// damaged entry alone, and refuses hostile layers (links, FIFOs, garbage and truncated bundles)
// with a status and a Fix. Export and import move entries through one bundle file.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "cache/bundle_format.hpp"
#include "cache/entry_format.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/readonly_layer.hpp"
#include "cache_support/disk_support.hpp"
#include "cache_support/process.hpp"
#include "cache_support/test_images.hpp"
#include "core/error.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi::cache;
using cache_test::make_image;
using cache_test::make_key;

namespace {

struct FileState {
    ino_t inode = 0;
    int64_t mtime_ns = 0;
    mode_t mode = 0;
    std::string content;
    bool operator==(const FileState& other) const {
        return inode == other.inode && mtime_ns == other.mtime_ns && mode == other.mode && content == other.content;
    }
};

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Every path under `root` with its inode, mtime, mode and content: what "never written" compares.
std::map<std::string, FileState> snapshot(const std::string& root) {
    static std::map<std::string, FileState>* into;
    std::map<std::string, FileState> files;
    into = &files;
    nftw(root.c_str(), [](const char* path, const struct stat* info, int, struct FTW*) {
        FileState state;
        state.inode = info->st_ino;
        state.mtime_ns = int64_t(info->st_mtim.tv_sec) * 1000000000 + info->st_mtim.tv_nsec;
        state.mode = info->st_mode;
        if (S_ISREG(info->st_mode)) state.content = read_file(path);
        (*into)[path] = state;
        return 0;
    }, 16, FTW_PHYS);
    return files;
}

void chmod_tree(const std::string& root, mode_t directories, mode_t files) {
    static mode_t dir_mode, file_mode;
    dir_mode = directories;
    file_mode = files;
    nftw(root.c_str(), [](const char* path, const struct stat* info, int, struct FTW*) {
        chmod(path, S_ISDIR(info->st_mode) ? dir_mode : file_mode);
        return 0;
    }, 16, FTW_PHYS);
}

// Descriptors of this process open on something under `root`, and whether each is read-only.
std::vector<std::pair<std::string, bool>> descriptors_under(const std::string& root) {
    std::vector<std::pair<std::string, bool>> found;
    for (int fd = 0; fd < 4096; ++fd) {
        char link[64], target[4096];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        ssize_t size = readlink(link, target, sizeof target - 1);
        if (size <= 0) continue;
        target[size] = '\0';
        if (std::strncmp(target, root.c_str(), root.size()) != 0) continue;
        int flags = fcntl(fd, F_GETFL);
        found.emplace_back(target, flags >= 0 && (flags & O_ACCMODE) == O_RDONLY);
    }
    return found;
}

class CacheReadOnly : public ::testing::Test {
protected:
    // A cache directory at `name` holding entries `first`..`last`, written by a cache of its own.
    std::string fill_directory(const std::string& name, uint64_t first, uint64_t last) {
        Config config;
        config.directory = dir_ / name;
        KernelCache filler(config);
        for (uint64_t i = first; i <= last; ++i) filler.store(make_key(i), make_image(i), nullptr);
        EXPECT_EQ(filler.stats().disk_stores, last - first + 1);
        return config.directory;
    }
    Config config_with(std::vector<std::string> layers) const {
        Config config;
        config.directory = dir_ / "local";
        config.readonly_layers = std::move(layers);
        return config;
    }
    // Exports what the cache at `directory` holds to a bundle at `bundle`.
    void export_from(const std::string& directory, const std::string& bundle, const char* match = nullptr,
                     uint64_t expected = 0) {
        Config config;
        config.directory = directory;
        KernelCache source(config);
        Transfer transfer;
        ASSERT_EQ(source.export_bundle(bundle, match, &transfer), CUABI_SUCCESS) << cuabi::last_error_message();
        if (expected != 0) EXPECT_EQ(transfer.entries, expected);
    }
    cache_test::TempDir dir_;
};

TEST_F(CacheReadOnly, DirectoryLayerServesAfterTheDiskMissesAndIsNeverWritten) {
    std::string layer = fill_directory("layer", 1, 3);
    chmod_tree(layer, 0555, 0444);
    // A corrupt entry in the layer: refused, counted, and left where it is.
    std::string bad = cache_test::entry_path(layer, make_key(2));
    chmod(bad.c_str(), 0644);
    std::string bytes = read_file(bad);
    bytes[bytes.size() - 3] ^= 0x40;
    std::ofstream(bad, std::ios::binary | std::ios::trunc) << bytes;
    chmod(bad.c_str(), 0444);
    auto before = snapshot(layer);

    KernelCache cache(config_with({layer}));
    Layer where = Layer::None;
    auto hit = cache.lookup(make_key(1), nullptr, &where);
    ASSERT_NE(hit, nullptr) << cache.degradation_reason();
    EXPECT_EQ(where, Layer::ReadOnly);
    EXPECT_TRUE(cache_test::same_image(*hit, *make_image(1)));
    EXPECT_TRUE(hit->untrusted) << "an entry from a read-only layer is not this machine's own";
    EXPECT_EQ(cache.lookup(make_key(2), nullptr, &where), nullptr);
    EXPECT_EQ(cache.lookup(make_key(9), nullptr, &where), nullptr);
    ASSERT_NE(cache.lookup(make_key(1), nullptr, &where), nullptr);
    EXPECT_EQ(where, Layer::Memory) << "a read-only hit is promoted to memory";

    Stats stats = cache.stats();
    EXPECT_EQ(stats.readonly_layers, 1u);
    EXPECT_EQ(stats.readonly_hits, 1u);
    EXPECT_EQ(stats.readonly_misses, 2u);
    EXPECT_EQ(stats.readonly_refused, 1u);
    EXPECT_EQ(stats.readonly_copies, 0u);
    EXPECT_EQ(stats.disk_entries, 0u) << "without CUABI_CACHE_READONLY_COPY a hit is not copied";
    EXPECT_NE(cache.degradation_reason().find("checksum mismatch"), std::string::npos) << cache.degradation_reason();
    EXPECT_NE(cache.degradation_reason().find("Fix: "), std::string::npos);

    auto open = descriptors_under(layer);
    ASSERT_FALSE(open.empty()) << "the layer keeps its directory open";
    for (const auto& fd : open) EXPECT_TRUE(fd.second) << fd.first << " is open for writing";
    EXPECT_TRUE(before == snapshot(layer)) << "the read-only layer changed";
}

TEST_F(CacheReadOnly, UnwritableDirectoryServesAProcessThatCannotWriteIt) {
    std::string layer = fill_directory("layer", 1, 1);
    chmod_tree(layer, 0555, 0444);
    chmod(dir_.path().c_str(), 0755);
    auto before = snapshot(layer);
    // Root writes anywhere: the lookup runs in a child that gives up root, and checks first that
    // it cannot write the layer, so that "read-only" is what the lookup met.
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(10);
        if (access(layer.c_str(), W_OK) == 0) _exit(11);
        Config config;
        config.disk_disabled = true;
        config.readonly_layers = {layer};
        KernelCache cache(config);
        Layer where = Layer::None;
        auto hit = cache.lookup(make_key(1), nullptr, &where);
        _exit(hit != nullptr && where == Layer::ReadOnly && cache_test::same_image(*hit, *make_image(1)) ? 0 : 12);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "10: could not drop root, 11: the layer was writable, 12: no hit";
    EXPECT_TRUE(before == snapshot(layer));
}

TEST_F(CacheReadOnly, CopyOptionWritesAHitToTheDiskAsAnUntrustedEntry) {
    std::string layer = fill_directory("layer", 1, 1);
    Config config = config_with({layer});
    config.readonly_copy = true;
    {
        KernelCache cache(config);
        Layer where = Layer::None;
        ASSERT_NE(cache.lookup(make_key(1), nullptr, &where), nullptr);
        EXPECT_EQ(cache.stats().readonly_copies, 1u);
    }
    KernelCache later(config_with({}));
    Layer where = Layer::None;
    auto hit = later.lookup(make_key(1), nullptr, &where);
    ASSERT_NE(hit, nullptr);
    EXPECT_EQ(where, Layer::Disk);
    EXPECT_TRUE(hit->untrusted) << "the copy keeps saying where it came from";
}

TEST_F(CacheReadOnly, BundleExportedFromOneCacheServesAnotherWithoutUnpacking) {
    std::string source = fill_directory("source", 1, 5);
    std::string bundle = dir_ / "fleet.cuabibundle";
    export_from(source, bundle, nullptr, 5);
    auto before = snapshot(bundle);
    KernelCache cache(config_with({bundle}));
    for (uint64_t i = 1; i <= 5; ++i) {
        Layer where = Layer::None;
        auto hit = cache.lookup(make_key(i), nullptr, &where);
        ASSERT_NE(hit, nullptr) << i << ": " << cache.degradation_reason();
        EXPECT_EQ(where, Layer::ReadOnly);
        EXPECT_TRUE(cache_test::same_image(*hit, *make_image(i)));
    }
    Key any = make_key(3);
    any.nvrtc = kAnyNvrtc;
    Layer where = Layer::None;
    KernelCache other(config_with({bundle}));
    EXPECT_NE(other.lookup(any, nullptr, &where), nullptr) << "a process without NVRTC takes any NVRTC's entry";
    for (const auto& fd : descriptors_under(bundle)) EXPECT_TRUE(fd.second) << fd.first;
    EXPECT_TRUE(before == snapshot(bundle));
    EXPECT_EQ(cache.stats().disk_entries, 0u);
}

TEST_F(CacheReadOnly, ExportMatchChoosesEntriesByTarget) {
    Config config;
    config.directory = dir_ / "source";
    {
        KernelCache filler(config);
        auto other = std::make_shared<CachedImage>(*make_image(2));
        other->target = "sm_80";
        filler.store(make_key(1), make_image(1), nullptr);
        filler.store(make_key(2), other, nullptr);
    }
    export_from(config.directory, dir_ / "sm80.bundle", "sm_8*", 1);
    KernelCache cache(config_with({dir_ / "sm80.bundle"}));
    Layer where = Layer::None;
    EXPECT_NE(cache.lookup(make_key(2), nullptr, &where), nullptr);
    EXPECT_EQ(cache.lookup(make_key(1), nullptr, &where), nullptr);
}

TEST_F(CacheReadOnly, DamagedBundleEntryIsRefusedAloneAndImportTakesTheRest) {
    std::string source = fill_directory("source", 1, 3);
    std::string bundle = dir_ / "damaged.bundle";
    export_from(source, bundle, nullptr, 3);
    std::unique_ptr<ReadOnlyLayer> reader;
    ASSERT_TRUE(ReadOnlyLayer::open(bundle, &reader).ok());
    const BundleRecord damaged = reader->index()[1];
    reader.reset();
    std::string bytes = read_file(bundle);
    bytes[damaged.offset + damaged.size - 2] ^= 0x01;
    std::ofstream(bundle, std::ios::binary | std::ios::trunc) << bytes;

    KernelCache cache(config_with({bundle}));
    int served = 0;
    for (uint64_t i = 1; i <= 3; ++i) {
        Layer where = Layer::None;
        Key key = make_key(i);
        bool is_damaged = key.high == damaged.key.high && key.low == damaged.key.low;
        auto hit = cache.lookup(key, nullptr, &where);
        EXPECT_EQ(hit == nullptr, is_damaged) << i;
        served += hit != nullptr;
    }
    EXPECT_EQ(served, 2);
    EXPECT_EQ(cache.stats().readonly_refused, 1u);

    KernelCache importer(config_with({}));
    Transfer transfer;
    EXPECT_EQ(importer.import_bundle(bundle, &transfer), CUABI_ERROR_CACHE_IO);
    std::string message = cuabi::last_error_message();
    EXPECT_NE(message.find("checksum mismatch"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << message;
    EXPECT_EQ(transfer.entries, 2u);
    EXPECT_EQ(transfer.refused, 1u);
    EXPECT_EQ(importer.stats().disk_entries, 2u);
}

TEST_F(CacheReadOnly, ImportRoundTripAddsUntrustedEntriesToTheDisk) {
    std::string source = fill_directory("source", 1, 4);
    std::string bundle = dir_ / "round.bundle";
    export_from(source, bundle, nullptr, 4);
    KernelCache importer(config_with({}));
    Transfer transfer;
    ASSERT_EQ(importer.import_bundle(bundle, &transfer), CUABI_SUCCESS) << cuabi::last_error_message();
    EXPECT_EQ(transfer.entries, 4u);
    EXPECT_EQ(transfer.refused, 0u);
    KernelCache later(config_with({}));
    for (uint64_t i = 1; i <= 4; ++i) {
        Layer where = Layer::None;
        auto hit = later.lookup(make_key(i), nullptr, &where);
        ASSERT_NE(hit, nullptr);
        EXPECT_EQ(where, Layer::Disk);
        EXPECT_TRUE(hit->untrusted);
        EXPECT_TRUE(cache_test::same_image(*hit, *make_image(i)));
    }
    // The bundle is not a directory layer, and a directory is not a bundle.
    EXPECT_EQ(importer.import_bundle(source, &transfer), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST_F(CacheReadOnly, HostileLayersAreRefusedWithAStatusAndAFix) {
    std::string source = fill_directory("source", 1, 2);
    std::string bundle = dir_ / "good.bundle";
    export_from(source, bundle, nullptr, 2);
    std::string good = read_file(bundle);
    ASSERT_EQ(symlink(source.c_str(), (dir_ / "link").c_str()), 0);
    ASSERT_EQ(mkfifo((dir_ / "fifo").c_str(), 0600), 0);
    std::ofstream(dir_ / "truncated", std::ios::binary) << good.substr(0, good.size() - 5);
    std::ofstream(dir_ / "garbage", std::ios::binary) << std::string(4096, 'x');
    std::ofstream(dir_ / "short", std::ios::binary) << good.substr(0, 20);
    std::string huge = good;  // claims 2^40 entries: refused before anything is allocated
    for (int i = 0; i < 8; ++i) huge[16 + i] = i == 5 ? 1 : 0;
    std::ofstream(dir_ / "oversized", std::ios::binary) << huge;
    std::string index_damaged = good;
    index_damaged[kBundleHeaderSize + 3] ^= 0x01;
    std::ofstream(dir_ / "index_damaged", std::ios::binary) << index_damaged;
    mkdir((dir_ / "not_a_cache").c_str(), 0700);

    struct Case {
        const char* name;
        cuabi::Status status;
        const char* says;
    } cases[] = {{"link", CUABI_ERROR_CACHE_UNSAFE, "symbolic link"},
                 {"fifo", CUABI_ERROR_CACHE_UNSAFE, "a FIFO"},
                 {"truncated", CUABI_ERROR_CACHE_IO, "the header claims a"},
                 {"garbage", CUABI_ERROR_CACHE_IO, "bad magic"},
                 {"short", CUABI_ERROR_CACHE_IO, "truncated"},
                 {"oversized", CUABI_ERROR_CACHE_IO, "more than the"},
                 {"index_damaged", CUABI_ERROR_CACHE_IO, "index checksum mismatch"},
                 {"not_a_cache", CUABI_ERROR_CACHE_IO, "not a cuabi cache directory"},
                 {"missing", CUABI_ERROR_CACHE_IO, "No such file"}};
    for (const Case& c : cases) {
        KernelCache cache(config_with({}));
        EXPECT_EQ(cache.add_readonly_layer(dir_ / c.name), c.status) << c.name;
        std::string message = cuabi::last_error_message();
        EXPECT_NE(message.find(c.says), std::string::npos) << c.name << ": " << message;
        EXPECT_NE(message.find("Fix: "), std::string::npos) << c.name << ": " << message;
        EXPECT_EQ(cache.stats().readonly_layers, 0u) << c.name;
    }
    KernelCache relative(config_with({}));
    EXPECT_EQ(relative.add_readonly_layer("relative/path"), CUABI_ERROR_INVALID_ARGUMENT);

    // From the environment a refused layer is skipped and said; the good one still serves.
    KernelCache mixed(config_with({dir_ / "garbage", bundle}));
    Layer where = Layer::None;
    EXPECT_NE(mixed.lookup(make_key(1), nullptr, &where), nullptr);
    EXPECT_EQ(mixed.stats().readonly_layers, 1u);
    EXPECT_NE(mixed.degradation_reason().find("bad magic"), std::string::npos) << mixed.degradation_reason();
}

TEST_F(CacheReadOnly, LinksAndFifosInsideADirectoryLayerAreRefusedNeverFollowed) {
    std::string layer = fill_directory("layer", 1, 2);
    std::string outside = fill_directory("outside", 3, 3);
    std::string entry3 = cache_test::entry_path(outside, make_key(3));
    std::string planted = cache_test::entry_path(layer, make_key(3));
    mkdir(planted.substr(0, planted.rfind('/')).c_str(), 0700);
    ASSERT_EQ(symlink(entry3.c_str(), planted.c_str()), 0);
    std::string entry1 = cache_test::entry_path(layer, make_key(1));
    ASSERT_EQ(unlink(entry1.c_str()), 0);
    ASSERT_EQ(mkfifo(entry1.c_str(), 0600), 0);
    auto before = snapshot(layer);
    KernelCache cache(config_with({layer}));
    Layer where = Layer::None;
    EXPECT_EQ(cache.lookup(make_key(3), nullptr, &where), nullptr) << "a link in a layer is never followed";
    EXPECT_EQ(cache.lookup(make_key(1), nullptr, &where), nullptr) << "a FIFO is refused, without blocking";
    EXPECT_NE(cache.lookup(make_key(2), nullptr, &where), nullptr);
    EXPECT_EQ(cache.stats().readonly_refused, 2u);
    EXPECT_TRUE(before == snapshot(layer)) << "refused entries stay where they are";
}

TEST_F(CacheReadOnly, DirectorySwappedAtTheLayerPathIsNeverSeen) {
    std::string layer = fill_directory("layer", 1, 1);
    KernelCache cache(config_with({layer}));
    ASSERT_EQ(cache.stats().readonly_layers, 1u);  // opened now
    ASSERT_EQ(rename(layer.c_str(), (dir_ / "moved").c_str()), 0);
    fill_directory("layer", 2, 2);  // another directory at the same path
    Layer where = Layer::None;
    EXPECT_NE(cache.lookup(make_key(1), nullptr, &where), nullptr) << "the layer is the directory that was opened";
    EXPECT_EQ(cache.lookup(make_key(2), nullptr, &where), nullptr);
}

// A bundle whose index files an intact entry under another key (a forged or mixed-up bundle): the
// entry is refused, as an entry of another key on disk is.
TEST_F(CacheReadOnly, BundleEntryFiledUnderAnotherKeyIsRefused) {
    std::vector<BundleEntry> entries;
    entries.push_back(BundleEntry{make_key(2), encode_entry(make_key(1), *make_image(1))});
    entries.push_back(BundleEntry{make_key(3), encode_entry(make_key(3), *make_image(3))});
    std::vector<uint8_t> head = encode_bundle_head(&entries);
    std::string bundle = dir_ / "forged.bundle";
    {
        std::ofstream out(bundle, std::ios::binary);
        out.write(reinterpret_cast<const char*>(head.data()), std::streamsize(head.size()));
        for (const BundleEntry& entry : entries)
            out.write(reinterpret_cast<const char*>(entry.bytes.data()), std::streamsize(entry.bytes.size()));
    }
    KernelCache cache(config_with({bundle}));
    Layer where = Layer::None;
    EXPECT_EQ(cache.lookup(make_key(2), nullptr, &where), nullptr);
    EXPECT_NE(cache.lookup(make_key(3), nullptr, &where), nullptr);
    EXPECT_EQ(cache.stats().readonly_refused, 1u);
    EXPECT_NE(cache.degradation_reason().find("another key"), std::string::npos) << cache.degradation_reason();
}

// A bundle cut short while a process uses it: its entries past the end are refused, never a crash
// (it is read with pread, not mapped, so a shrunk file cannot raise SIGBUS).
TEST_F(CacheReadOnly, BundleTruncatedWhileInUseRefusesWhatIsGone) {
    std::string source = fill_directory("source", 1, 3);
    std::string bundle = dir_ / "shrinking.bundle";
    export_from(source, bundle, nullptr, 3);
    KernelCache cache(config_with({bundle}));
    ASSERT_EQ(cache.stats().readonly_layers, 1u);
    ASSERT_EQ(truncate(bundle.c_str(), off_t(kBundleHeaderSize + 3 * kBundleIndexRecordSize + 10)), 0);
    int served = 0;
    for (uint64_t i = 1; i <= 3; ++i) {
        Layer where = Layer::None;
        served += cache.lookup(make_key(i), nullptr, &where) != nullptr;
    }
    EXPECT_EQ(served, 0);
    EXPECT_EQ(cache.stats().readonly_refused, 3u);
    EXPECT_NE(cache.degradation_reason().find("could not be read whole"), std::string::npos) << cache.degradation_reason();
}

TEST(CacheReadOnlyApi, NullAndRelativePathsAreRefusedNamingTheArgument) {
    EXPECT_EQ(cuabi_cache_add_readonly_layer(nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("path"), std::string::npos);
    EXPECT_EQ(cuabi_cache_export(nullptr, nullptr, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_cache_import(nullptr, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(cuabi_cache_add_readonly_layer("relative/layer"), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("Fix: "), std::string::npos);
    uint64_t imported = 7, refused = 7;
    EXPECT_EQ(cuabi_cache_import("/nonexistent/cuabi.bundle", &imported, &refused), CUABI_ERROR_CACHE_IO);
    EXPECT_EQ(imported, 0u);
    EXPECT_EQ(refused, 0u);
}

TEST(CacheReadOnlyEnvironment, LayerListSkipsEmptyPartsAndCopyTakesOnlyZeroOrOne) {
    setenv("CUABI_CACHE_READONLY_DIRS", "::/opt/a::/opt/b.bundle:", 1);
    setenv("CUABI_CACHE_READONLY_COPY", "yes", 1);
    Config config = Config::from_environment();
    EXPECT_EQ(config.readonly_layers, (std::vector<std::string>{"/opt/a", "/opt/b.bundle"}));
    EXPECT_FALSE(config.readonly_copy);
    EXPECT_NE(config.warnings.find("CUABI_CACHE_READONLY_COPY='yes'"), std::string::npos) << config.warnings;
    setenv("CUABI_CACHE_READONLY_COPY", "1", 1);
    EXPECT_TRUE(Config::from_environment().readonly_copy);
    unsetenv("CUABI_CACHE_READONLY_DIRS");
    unsetenv("CUABI_CACHE_READONLY_COPY");
    EXPECT_TRUE(Config::from_environment().readonly_layers.empty());
}

}  // namespace
