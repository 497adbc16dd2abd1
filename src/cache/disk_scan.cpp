#include "cache/disk_scan.hpp"
#include "range/ranges.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

namespace cuabi {
namespace cache {
namespace {

constexpr int64_t kStaleTempNs = int64_t(3600) * 1000000000;
constexpr size_t kStemLength = 30;  // hex digits after the 2-digit shard name
constexpr const char kSuffix[] = ".cuabi";

bool is_hex(const char* text, size_t length) {
    for (size_t i = 0; i < length; ++i)
        if (!((text[i] >= '0' && text[i] <= '9') || (text[i] >= 'a' && text[i] <= 'f'))) return false;
    return true;
}

uint64_t parse_hex(const std::string& hex) { return std::strtoull(hex.c_str(), nullptr, 16); }

int64_t now_ns() {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void scan_shard(const std::string& shard_path, const char* shard, bool remove_stale_temps,
                std::vector<ScannedEntry>* out) {
    DIR* dir = opendir(shard_path.c_str());
    if (dir == nullptr) return;
    int dir_fd = dirfd(dir);
    int64_t now = now_ns();
    while (struct dirent* item = readdir(dir)) {
        const char* name = item->d_name;
        size_t length = std::strlen(name);
        struct stat info;
        bool is_entry = length == kStemLength + sizeof kSuffix - 1 && is_hex(name, kStemLength) &&
                        std::strcmp(name + kStemLength, kSuffix) == 0;
        bool is_temp = name[0] == '.' && length > 4 && std::strcmp(name + length - 4, ".tmp") == 0;
        if (!is_entry && !is_temp) continue;
        if (fstatat(dir_fd, name, &info, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(info.st_mode)) continue;
        int64_t mtime = int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
        if (is_temp) {
            if (remove_stale_temps && now - mtime > kStaleTempNs) unlinkat(dir_fd, name, 0);
            continue;
        }
        std::string hex = std::string(shard) + std::string(name, kStemLength);
        ScannedEntry entry;
        entry.path = shard_path + "/" + name;
        entry.key.high = parse_hex(hex.substr(0, 16));
        entry.key.low = parse_hex(hex.substr(16, 16));
        entry.bytes = static_cast<uint64_t>(info.st_size);
        entry.mtime_ns = mtime;
        out->push_back(std::move(entry));
    }
    closedir(dir);
}

}  // namespace

Problem scan_entries(const std::string& directory, bool remove_stale_temps, std::vector<ScannedEntry>* out) {
    out->clear();
    std::string kernels = directory + "/kernels";
    DIR* dir = opendir(kernels.c_str());
    if (dir == nullptr) {
        if (errno == ENOENT) return Problem{};  // nothing stored yet
        return io_problem("listing the cache directory", kernels, errno);
    }
    while (struct dirent* item = readdir(dir)) {
        if (std::strlen(item->d_name) != 2 || !is_hex(item->d_name, 2)) continue;
        scan_shard(kernels + "/" + item->d_name, item->d_name, remove_stale_temps, out);
    }
    closedir(dir);
    return Problem{};
}

uint64_t total_bytes(const std::vector<ScannedEntry>& entries) {
    uint64_t total = 0;
    for (const ScannedEntry& entry : entries) total += entry.bytes;
    return total;
}

Evicted evict_to(std::vector<ScannedEntry>* entries, uint64_t max_bytes) {
    Evicted evicted;
    uint64_t total = total_bytes(*entries);
    if (total <= max_bytes) return evicted;
    range::Scope scope(range::Phase::CacheEvict);
    std::sort(entries->begin(), entries->end(), [](const ScannedEntry& a, const ScannedEntry& b) {
        return a.mtime_ns != b.mtime_ns ? a.mtime_ns < b.mtime_ns : a.path < b.path;
    });
    std::vector<ScannedEntry> kept;
    for (ScannedEntry& entry : *entries) {
        // ENOENT: someone removed it already; either way its bytes are gone.
        if (total > max_bytes && (unlink(entry.path.c_str()) == 0 || errno == ENOENT)) {
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

