#include "cache/pch_store.hpp"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "cache/cache_key.hpp"
#include "core/dir_listing.hpp"

namespace cuabi {
namespace cache {
namespace {

constexpr char kStoreName[] = "pch";
constexpr size_t kHexLength = 32;
constexpr char kSuffix[] = ".pch";
constexpr size_t kNameLength = kHexLength + 1 + kHexLength + sizeof kSuffix - 1;
constexpr char kWorkPrefix[] = "work.";

bool is_hex(const char* text, size_t length) {
    for (size_t i = 0; i < length; ++i)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return false;
    return true;
}

// "<key>-<checksum>.pch": true with the checksum part.
bool parse_pch_name(const char* name, std::string* key_hex, std::string* checksum_hex) {
    if (std::strlen(name) != kNameLength || !is_hex(name, kHexLength) || name[kHexLength] != '-' ||
        !is_hex(name + kHexLength + 1, kHexLength) || std::strcmp(name + kNameLength - 4, kSuffix) != 0)
        return false;
    key_hex->assign(name, kHexLength);
    checksum_hex->assign(name + kHexLength + 1, kHexLength);
    return true;
}

// The checksum of the open regular file `fd` of `size` bytes, or "" when it cannot be read.
std::string checksum_of(int fd, uint64_t size) {
    if (size == 0) return pch_checksum_hex("", 0);
    void* bytes = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (bytes == MAP_FAILED) return "";
    std::string hex = pch_checksum_hex(bytes, size);
    munmap(bytes, size);
    return hex;
}

// A regular file of this user, non-empty and no larger than a PCH can be.
bool plausible(const struct stat& info) {
    return S_ISREG(info.st_mode) && info.st_uid == geteuid() && info.st_size > 0 &&
           static_cast<uint64_t>(info.st_size) <= kMaxPchBytes;
}

// Opens `name` in `directory` as a PCH may be opened: no link followed, no FIFO waited on.
Fd open_candidate(int directory, const char* name, struct stat* info) {
    Fd fd(openat(directory, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    if (!fd.ok() || fstat(fd.get(), info) != 0) return Fd();
    return fd;
}

bool process_gone(const char* work_name) {
    const char* pid_text = work_name + sizeof kWorkPrefix - 1;
    char* end = nullptr;
    long pid = std::strtol(pid_text, &end, 10);
    if (end == pid_text || *end != '.' || pid <= 0) return true;  // not one of ours: gone
    return kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

}  // namespace

std::string pch_checksum_hex(const void* bytes, size_t size) {
    Digest digest = hash128(bytes, size);
    char hex[kHexLength + 1];
    std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(digest.high),
                  static_cast<unsigned long long>(digest.low));
    return hex;
}

Problem open_pch_store(const std::string& cache_directory, Fd* out) {
    Fd directory;
    Problem problem = open_cache_directory(cache_directory, &directory);
    if (!problem.ok()) return problem;
    return open_subdirectory(directory.get(), kStoreName, true, cache_directory, out);
}

Problem open_existing_pch_store(const std::string& cache_directory, Fd* out) {
    Fd directory(open(cache_directory.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!directory.ok()) return Problem();  // no cache directory yet: no store either
    directory = Fd();
    Problem problem = open_cache_directory(cache_directory, &directory);
    if (!problem.ok()) return problem;
    int missing = 0;
    problem = open_subdirectory(directory.get(), kStoreName, false, cache_directory, out, &missing);
    return missing == ENOENT ? Problem() : problem;
}

PchFind find_pch(int store, const std::string& key_hex) {
    PchFind found;
    std::vector<std::string> candidates;
    {
        DirListing listing = DirListing::of_descriptor(store);
        while (listing.ok())
            if (struct dirent* entry = listing.next(); entry == nullptr) break;
            else if (std::strncmp(entry->d_name, key_hex.c_str(), kHexLength) == 0) candidates.push_back(entry->d_name);
    }
    for (const std::string& name : candidates) {
        std::string key, checksum;
        struct stat info{};
        Fd fd;
        bool whole = parse_pch_name(name.c_str(), &key, &checksum) && key == key_hex &&
                     (fd = open_candidate(store, name.c_str(), &info)).ok() && plausible(info) &&
                     checksum_of(fd.get(), static_cast<uint64_t>(info.st_size)) == checksum;
        if (!whole) {
            // Whatever it is -- a link, a FIFO, a truncated or altered file -- it is not a PCH.
            if (fd.ok() && S_ISDIR(info.st_mode)) remove_tree_at(store, name.c_str());
            else unlinkat(store, name.c_str(), 0);
            found.refused += 1;
            continue;
        }
        futimens(fd.get(), nullptr);  // most recently used: evicted last
        found.file = std::move(fd);
        found.name = name;
        break;  // another whole one (two processes created it at once) is left to eviction
    }
    return found;
}

void remove_pch(int store, const std::string& name) { unlinkat(store, name.c_str(), 0); }

Problem make_pch_work_directory(int store, Fd* out, std::string* out_name) {
    static std::atomic<uint64_t> sequence{0};
    for (int attempt = 0; attempt < 8; ++attempt) {
        char name[64];
        std::snprintf(name, sizeof name, "%s%d.%llu", kWorkPrefix, static_cast<int>(getpid()),
                      static_cast<unsigned long long>(sequence.fetch_add(1)));
        if (mkdirat(store, name, 0700) != 0) {
            if (errno == EEXIST) continue;  // a dead process of the same pid left it
            return io_problem("create the precompiled-header work directory", name, errno);
        }
        Problem problem = open_subdirectory(store, name, false, "the precompiled-header store", out);
        if (!problem.ok()) return problem;
        *out_name = name;
        return Problem();
    }
    return io_problem("create the precompiled-header work directory", "work.*", EEXIST);
}

bool publish_pch(int work, const char* file_name, int store, const std::string& key_hex, std::string* why) {
    struct stat info{};
    Fd fd = open_candidate(work, file_name, &info);
    if (!fd.ok() || !plausible(info)) {
        *why = fd.ok() ? "NVRTC's PCH is not a regular file of at most 512 MiB" : "NVRTC wrote no PCH file";
        return false;
    }
    std::string checksum = checksum_of(fd.get(), static_cast<uint64_t>(info.st_size));
    if (checksum.empty() || fsync(fd.get()) != 0) {
        *why = std::string("the PCH could not be read back: ") + std::strerror(errno);
        return false;
    }
    fchmod(fd.get(), 0600);
    std::string name = key_hex + "-" + checksum + kSuffix;
    if (renameat(work, file_name, store, name.c_str()) != 0) {
        *why = std::string("the PCH could not be moved into the store: ") + std::strerror(errno);
        return false;
    }
    fsync(store);
    evict_pch(store, kPchStoreMaxBytes, kPchStoreMaxFiles);
    return true;
}

namespace {

struct StoredPch {
    std::string name;
    int64_t used_ns;
    uint64_t bytes;
};

// The store's PCH (regular files under PCH names) and its work directories.
struct StoreListing {
    std::vector<StoredPch> pch;
    std::vector<std::string> work;
};

StoreListing list_store(int store) {
    StoreListing found;
    DirListing listing = DirListing::of_descriptor(store);
    while (listing.ok()) {
        struct dirent* entry = listing.next();
        if (entry == nullptr) break;
        std::string key, checksum;
        struct stat info{};
        if (fstatat(store, entry->d_name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (parse_pch_name(entry->d_name, &key, &checksum) && S_ISREG(info.st_mode))
            found.pch.push_back({entry->d_name, int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec,
                                 static_cast<uint64_t>(info.st_size)});
        else if (std::strncmp(entry->d_name, kWorkPrefix, sizeof kWorkPrefix - 1) == 0)
            found.work.push_back(entry->d_name);
    }
    return found;
}

}  // namespace

PchStoreUsage pch_store_usage(int store) {
    PchStoreUsage usage;
    for (const StoredPch& pch : list_store(store).pch) {
        usage.files += 1;
        usage.bytes += pch.bytes;
    }
    return usage;
}

uint64_t evict_pch(int store, uint64_t max_bytes, uint32_t max_files) {
    StoreListing listing = list_store(store);
    for (const std::string& name : listing.work)
        if (process_gone(name.c_str())) remove_tree_at(store, name.c_str());
    std::vector<StoredPch>& stored = listing.pch;
    std::sort(stored.begin(), stored.end(), [](const StoredPch& a, const StoredPch& b) { return a.used_ns > b.used_ns; });
    uint64_t bytes = 0, kept = 0, removed = 0;
    for (const StoredPch& pch : stored) {
        if (kept < max_files && bytes + pch.bytes <= max_bytes) {
            bytes += pch.bytes;
            kept += 1;
        } else if (unlinkat(store, pch.name.c_str(), 0) == 0) {
            removed += 1;
        }
    }
    return removed;
}

}  // namespace cache
}  // namespace cuabi
