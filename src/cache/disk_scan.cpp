#include "cache/disk_scan.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/dir_listing.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace cache {
namespace {

constexpr size_t kStemLength = 30;  // request hex digits after the 2-digit shard name
constexpr size_t kNvrtcLength = 16;
constexpr const char kSuffix[] = ".cuabi";
constexpr size_t kEntryNameLength = kStemLength + 1 + kNvrtcLength + sizeof kSuffix - 1;

bool is_hex(const char* text, size_t length) {
    for (size_t i = 0; i < length; ++i)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return false;
    return true;
}

uint64_t parse_hex(const char* text, size_t length) {
    uint64_t value = 0;
    for (size_t i = 0; i < length; ++i)
        value = value * 16 + static_cast<uint64_t>(text[i] <= '9' ? text[i] - '0' : text[i] - 'a' + 10);
    return value;
}

int64_t now_ns() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int64_t mtime_of(const struct stat& info) { return int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec; }

// A temp file whose writer died: unlocked (writers hold a flock until their rename) and past
// the grace period.
bool dead_temp(int shard, const char* name, const struct stat& info) {
    if (!S_ISREG(info.st_mode) || now_ns() - mtime_of(info) < kTempGraceNs) return false;
    int fd = openat(shard, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    bool unlocked = flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return unlocked;
}

// Lists one shard; `sweep` removes what does not belong.
void scan_shard(int shard, const std::string& shard_text, bool sweep, std::vector<ScannedEntry>* out, Swept* swept) {
    DirListing listing = DirListing::of_descriptor(shard);
    if (!listing.ok()) return;
    uid_t euid = geteuid();
    while (struct dirent* item = listing.next()) {
        const char* name = item->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        struct stat info;
        if (fstatat(shard, name, &info, AT_SYMLINK_NOFOLLOW) != 0) continue;
        Key key;
        if (parse_entry_name(shard_text, name, &key) && S_ISREG(info.st_mode) && info.st_uid == euid) {
            ScannedEntry entry;
            entry.shard = shard_text;
            entry.name = name;
            entry.key = key;
            entry.bytes = static_cast<uint64_t>(info.st_size);
            entry.mtime_ns = mtime_of(info);
            out->push_back(std::move(entry));
            continue;
        }
        if (!sweep) continue;
        if (is_temp_name(name) && S_ISREG(info.st_mode)) {
            if (dead_temp(shard, name, info) && unlinkat(shard, name, 0) == 0 && swept != nullptr) swept->temps += 1;
        } else if (remove_tree_at(shard, name) && swept != nullptr) {
            swept->strays += 1;
        }
    }
}

}  // namespace

std::string shard_name(const Key& key) { return key.hex().substr(0, 2); }

std::string entry_file_name(const Key& key) { return key.hex().substr(2) + "." + key.nvrtc_hex() + kSuffix; }

bool parse_entry_name(const std::string& shard, const char* name, Key* out) {
    if (shard.size() != 2 || !is_hex(shard.data(), 2) || std::strlen(name) != kEntryNameLength ||
        !is_hex(name, kStemLength) || name[kStemLength] != '.' || !is_hex(name + kStemLength + 1, kNvrtcLength) ||
        std::strcmp(name + kStemLength + 1 + kNvrtcLength, kSuffix) != 0)
        return false;
    std::string hex = shard + std::string(name, kStemLength);
    out->high = parse_hex(hex.data(), 16);
    out->low = parse_hex(hex.data() + 16, 16);
    out->nvrtc = parse_hex(name + kStemLength + 1, kNvrtcLength);
    return true;
}

bool is_temp_name(const char* name) {
    size_t length = std::strlen(name);
    return name[0] == '.' && length > 5 && std::strcmp(name + length - 4, ".tmp") == 0;
}

void sweep_shard(int shard, const std::string& shard_text, Swept* swept) {
    std::vector<ScannedEntry> ignored;
    scan_shard(shard, shard_text, /*sweep=*/true, &ignored, swept);
}

Problem scan_entries(int kernels, const std::string& where, bool sweep, std::vector<ScannedEntry>* out,
                     Swept* swept) {
    out->clear();
    DirListing listing = DirListing::of_descriptor(kernels);
    if (!listing.ok()) return io_problem("listing the cache directory", where, errno);
    while (struct dirent* item = listing.next()) {
        const char* name = item->d_name;
        if (std::strcmp(name, ".") == 0 || std::strcmp(name, "..") == 0) continue;
        bool shard_named = std::strlen(name) == 2 && is_hex(name, 2);
        Fd shard;
        if (shard_named && open_subdirectory(kernels, name, false, where, &shard).ok()) {
            scan_shard(shard.get(), name, sweep, out, swept);
        } else if (sweep && remove_tree_at(kernels, name) && swept != nullptr) {
            swept->strays += 1;  // a link, a file, a foreign directory: never followed
        }
    }
    return Problem{};
}

uint64_t total_bytes(const std::vector<ScannedEntry>& entries) {
    uint64_t total = 0;
    for (const ScannedEntry& entry : entries) total += entry.bytes;
    return total;
}

Evicted evict_to(int kernels, std::vector<ScannedEntry>* entries, uint64_t max_bytes) {
    Evicted evicted;
    uint64_t total = total_bytes(*entries);
    if (total <= max_bytes) return evicted;
    range::Scope scope(range::Phase::CacheEvict);
    std::sort(entries->begin(), entries->end(), [](const ScannedEntry& a, const ScannedEntry& b) {
        return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.name < b.name;
    });
    std::vector<ScannedEntry> kept;
    Fd shard;
    std::string shard_open;
    for (ScannedEntry& entry : *entries) {
        if (total > max_bytes && entry.shard != shard_open) {
            shard = Fd(openat(kernels, entry.shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            shard_open = entry.shard;
        }
        // ENOENT: someone removed it already; either way its bytes are gone.
        if (total > max_bytes && shard.ok() && (unlinkat(shard.get(), entry.name.c_str(), 0) == 0 || errno == ENOENT)) {
            total -= entry.bytes;
            evicted.entries += 1;
            evicted.bytes += entry.bytes;
        } else {
            kept.push_back(std::move(entry));
        }
    }
    *entries = std::move(kept);
    return evicted;
}

}  // namespace cache
}  // namespace cuabi
