#include "cache/disk_store.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <vector>

#include "cache/directory_lock.hpp"
#include "cache/disk_scan.hpp"
#include "cache/entry_format.hpp"

namespace cuabi {
namespace cache {
namespace {

// When a store pushes the directory over the cap, evict down to this fraction of it, so that
// the next stores do not each trigger a full scan.
constexpr uint64_t kLowWaterPercent = 90;

bool read_all(int fd, uint8_t* data, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t got = read(fd, data + done, size - done);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += static_cast<size_t>(got);
    }
    return true;
}

bool write_all(int fd, const uint8_t* data, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t put = write(fd, data + done, size - done);
        if (put < 0 && errno == EINTR) continue;
        if (put < 0) return false;
        done += static_cast<size_t>(put);
    }
    return true;
}

void fsync_directory(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    fsync(fd);  // durability only: an entry lost in a crash is a miss, never a wrong answer
    close(fd);
}

// Removes `path` if it is still the file `read_info` described (not a fresh entry that another
// process published after we read the bad one). Holds the directory lock for the check.
void remove_bad_entry(const std::string& directory, const std::string& path, const struct stat& read_info) {
    DirectoryLock lock(directory, /*create=*/false);
    if (!lock.ok()) return;  // no lock file: nothing was ever published by a writer, or read-only
    struct stat now;
    if (stat(path.c_str(), &now) != 0 || now.st_ino != read_info.st_ino || now.st_dev != read_info.st_dev) return;
    if (unlink(path.c_str()) != 0) return;
    uint64_t ledger = 0;
    if (lock.read_ledger(&ledger))
        lock.write_ledger(ledger > uint64_t(read_info.st_size) ? ledger - uint64_t(read_info.st_size) : 0);
}

std::string temp_path(const std::string& shard, const Key& key) {
    static std::atomic<uint64_t> sequence{0};
    return format("%s/.%s.%d.%llu.tmp", shard.c_str(), key.hex().c_str(), static_cast<int>(getpid()),
                  static_cast<unsigned long long>(sequence.fetch_add(1)));
}

}  // namespace

DiskStore::DiskStore(std::string directory, uint64_t max_bytes)
    : directory_(std::move(directory)), max_bytes_(max_bytes) {}

std::string DiskStore::entry_path(const Key& key) const {
    std::string hex = key.hex();
    return directory_ + "/kernels/" + hex.substr(0, 2) + "/" + hex.substr(2) + ".cuabi";
}

DiskStore::Read DiskStore::read(const Key& key, CachedImage* out, std::string* why) {
    std::string path = entry_path(key);
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return Read::Miss;
    struct stat info;
    bool whole = false;
    std::vector<uint8_t> bytes;
    // An entry larger than the cap cannot have survived its own store: do not even allocate it.
    bool regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    if (regular && uint64_t(info.st_size) > max_bytes_) {
        close(fd);
        *why = format("cache entry '%s' is %lld bytes, more than the cache's cap of %llu", path.c_str(),
                      static_cast<long long>(info.st_size), static_cast<unsigned long long>(max_bytes_));
        remove_bad_entry(directory_, path, info);
        return Read::Corrupt;
    }
    if (regular) {
        bytes.resize(static_cast<size_t>(info.st_size));
        whole = read_all(fd, bytes.data(), bytes.size());
    }
    if (!whole) {
        close(fd);
        return Read::Miss;  // vanished or unreadable: nothing to judge
    }
    if (!decode_entry(key, bytes.data(), bytes.size(), out, why)) {
        close(fd);
        *why = format("cache entry '%s' is corrupt (%s); removed, compiling again", path.c_str(), why->c_str());
        remove_bad_entry(directory_, path, info);
        return Read::Corrupt;
    }
    // The LRU clock: a hit makes the entry the most recently used. Best effort (read-only dirs).
    struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
    futimens(fd, now);
    close(fd);
    return Read::Hit;
}

Problem DiskStore::write(const Key& key, const CachedImage& image, uint64_t* out_evicted) {
    *out_evicted = 0;
    std::vector<uint8_t> bytes = encode_entry(key, image);
    std::string path = entry_path(key);
    std::string shard = path.substr(0, path.rfind('/'));
    Problem problem = make_private_directory(directory_ + "/kernels");
    if (problem.ok()) problem = make_private_directory(shard);
    if (!problem.ok()) return problem;

    std::string temp = temp_path(shard, key);
    int fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return io_problem("creating the cache entry", temp, errno);
    bool written = write_all(fd, bytes.data(), bytes.size()) && fsync(fd) == 0;
    int write_errno = errno;
    if (close(fd) != 0 && written) {
        written = false;
        write_errno = errno;
    }
    if (!written) {
        unlink(temp.c_str());
        return io_problem("writing the cache entry", temp, write_errno);
    }

    {
        DirectoryLock lock(directory_);
        if (!lock.ok()) {
            unlink(temp.c_str());
            return lock.problem();
        }
        struct stat old;
        uint64_t replaced = stat(path.c_str(), &old) == 0 ? uint64_t(old.st_size) : 0;
        if (rename(temp.c_str(), path.c_str()) != 0) {
            int rename_errno = errno;
            unlink(temp.c_str());
            return io_problem("publishing the cache entry", path, rename_errno);
        }
        uint64_t ledger = 0;
        bool known = lock.read_ledger(&ledger);
        ledger = ledger - std::min(ledger, replaced) + bytes.size();
        if (!known || ledger > max_bytes_) {
            std::vector<ScannedEntry> entries;
            Problem scanned = scan_entries(directory_, /*remove_stale_temps=*/true, &entries);
            if (scanned.ok()) {
                if (total_bytes(entries) > max_bytes_)
                    *out_evicted = evict_to(&entries, max_bytes_ / 100 * kLowWaterPercent).entries;
                ledger = total_bytes(entries);
            }
        }
        lock.write_ledger(ledger);
    }
    fsync_directory(shard);
    return Problem{};
}

Problem DiskStore::usage(uint64_t* out_entries, uint64_t* out_bytes) const {
    std::vector<ScannedEntry> entries;
    Problem problem = scan_entries(directory_, /*remove_stale_temps=*/false, &entries);
    *out_entries = entries.size();
    *out_bytes = total_bytes(entries);
    return problem;
}

Problem DiskStore::prune(uint64_t max_bytes, Removal* out) {
    *out = Removal{};
    DirectoryLock lock(directory_);
    if (!lock.ok()) return lock.problem();
    std::vector<ScannedEntry> entries;
    Problem problem = scan_entries(directory_, /*remove_stale_temps=*/true, &entries);
    if (!problem.ok()) return problem;
    Evicted evicted = evict_to(&entries, max_bytes);
    out->removed_entries = evicted.entries;
    out->removed_bytes = evicted.bytes;
    lock.write_ledger(total_bytes(entries));
    if (total_bytes(entries) <= max_bytes) return Problem{};
    Problem stuck;
    stuck.status = CUABI_ERROR_CACHE_IO;
    stuck.what = format("%zu cache entries (%llu bytes) in '%s/kernels' could not be removed", entries.size(),
                        static_cast<unsigned long long>(total_bytes(entries)), directory_.c_str());
    stuck.fix = "make the cache directory writable by this user, or remove the files by hand";
    return stuck;
}

Problem DiskStore::clear(Removal* out) { return prune(0, out); }

Problem DiskStore::verify(Removal* out) {
    *out = Removal{};
    DirectoryLock lock(directory_);
    if (!lock.ok()) return lock.problem();
    std::vector<ScannedEntry> entries;
    Problem problem = scan_entries(directory_, /*remove_stale_temps=*/true, &entries);
    if (!problem.ok()) return problem;
    uint64_t kept_bytes = 0;
    for (const ScannedEntry& entry : entries) {
        out->checked_entries += 1;
        std::vector<uint8_t> bytes(entry.bytes);
        int fd = open(entry.path.c_str(), O_RDONLY | O_CLOEXEC);
        bool whole = fd >= 0 && read_all(fd, bytes.data(), bytes.size());
        if (fd >= 0) close(fd);
        CachedImage image;
        std::string why;
        if (whole && decode_entry(entry.key, bytes.data(), bytes.size(), &image, &why)) {
            kept_bytes += entry.bytes;
        } else if (unlink(entry.path.c_str()) == 0 || errno == ENOENT) {
            out->removed_entries += 1;
            out->removed_bytes += entry.bytes;
        } else {
            Problem stuck = io_problem("removing the corrupt cache entry", entry.path, errno);
            lock.write_ledger(kept_bytes + entry.bytes);
            return stuck;
        }
    }
    lock.write_ledger(kept_bytes);
    return Problem{};
}

}  // namespace cache
}  // namespace cuabi
