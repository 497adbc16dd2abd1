#include "cache/disk_store.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <new>
#include <vector>

#include "cache/directory_lock.hpp"
#include "cache/disk_scan.hpp"
#include "cache/entry_format.hpp"
#include "cache/file_io.hpp"
#include "core/dir_listing.hpp"

namespace cuabi {
namespace cache {
namespace {

// When a store would push the directory over the cap, evict down to this fraction of it first,
// so that the next stores do not each trigger a full scan.
constexpr uint64_t kLowWaterPercent = 90;
// Entries of one request from different NVRTCs considered by a lookup without NVRTC.
constexpr size_t kMaxCandidates = 16;

bool allocate(std::vector<uint8_t>* bytes, size_t size) {
    try {
        bytes->resize(size);
        return true;
    } catch (const std::bad_alloc&) {
        return false;
    }
}

// 64 random bits: temp names must not collide across hosts and PID namespaces sharing a volume,
// where a pid and a counter repeat.
uint64_t random_bits() {
    uint64_t bits = 0;
    if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) return bits;
    static std::atomic<uint64_t> sequence{0};
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    bits = (uint64_t(now.tv_sec) << 32) ^ uint64_t(now.tv_nsec) ^ (uint64_t(getpid()) << 20) ^
           (sequence.fetch_add(1) * 0x9e3779b97f4a7c15ull);
    return bits;
}

std::string hex64(uint64_t value) {
    static const char digits[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 0; i < 16; ++i) out[15 - i] = digits[(value >> (4 * i)) & 0xf];
    return out;
}

Fd open_shard(int kernels, const std::string& shard) {
    return Fd(openat(kernels, shard.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
}

}  // namespace

Problem DiskStore::open(const std::string& directory, uint64_t max_bytes, uint32_t lock_timeout_ms,
                        std::unique_ptr<DiskStore>* out) {
    Fd fd;
    Problem problem = open_cache_directory(directory, &fd);
    if (problem.ok()) out->reset(new DiskStore(std::move(fd), directory, max_bytes, lock_timeout_ms));
    return problem;
}

DiskStore::DiskStore(Fd directory, std::string path, uint64_t max_bytes, uint32_t lock_timeout_ms)
    : directory_(std::move(directory)), path_(std::move(path)), max_bytes_(max_bytes), lock_timeout_ms_(lock_timeout_ms) {}

DiskStore::~DiskStore() {
    int fd = kernels_.load();
    if (fd >= 0) close(fd);
}

std::string DiskStore::entry_path(const Key& key) {
    return "kernels/" + shard_name(key) + "/" + entry_file_name(key);
}

int DiskStore::kernels(bool create, Problem* problem) {
    int fd = kernels_.load(std::memory_order_acquire);
    if (fd >= 0) return fd;
    std::lock_guard<std::mutex> lock(kernels_mutex_);
    fd = kernels_.load(std::memory_order_relaxed);
    if (fd >= 0) return fd;
    Fd opened;
    Problem found = open_subdirectory(directory_.get(), "kernels", create, path_, &opened);
    if (!found.ok()) {
        if (problem != nullptr) *problem = found;
        return -1;
    }
    fd = opened.release();
    kernels_.store(fd, std::memory_order_release);
    return fd;
}

void DiskStore::remove_bad(const std::string& shard_text, const std::string& name, const struct stat& seen) {
    DirectoryLock lock(directory_.get(), path_, lock_timeout_ms_);
    int kernels_fd = kernels(false, nullptr);
    if (!lock.ok() || kernels_fd < 0) return;  // the next reader tries again
    Fd shard;
    int parent = kernels_fd;
    const char* target = shard_text.c_str();
    if (!name.empty()) {
        shard = open_shard(kernels_fd, shard_text);
        if (!shard.ok()) return;
        parent = shard.get();
        target = name.c_str();
    }
    struct stat now;
    // Only if it is still what was looked at, not something another process published since.
    if (fstatat(parent, target, &now, AT_SYMLINK_NOFOLLOW) != 0 || now.st_ino != seen.st_ino ||
        now.st_dev != seen.st_dev)
        return;
    uint64_t ledger = 0;
    bool known = lock.read_ledger(&ledger);
    lock.begin_change();
    bool removed = remove_tree_at(parent, target);
    // Only regular entry files count in the ledger.
    bool counted = removed && !name.empty() && S_ISREG(seen.st_mode) && seen.st_uid == geteuid();
    if (known) lock.write_ledger(counted ? ledger - std::min(ledger, uint64_t(seen.st_size)) : ledger);
}

DiskStore::Read DiskStore::read_exact(int shard, const std::string& shard_text, const std::string& name,
                                      const Key& key, CachedImage* out, std::string* why) {
    std::string shown = path_ + "/kernels/" + shard_text + "/" + name;
    Fd fd(openat(shard, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat info;
    if (!fd.ok()) {
        if (errno != ELOOP || fstatat(shard, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return Read::Miss;
        *why = format("cache entry '%s' is a symbolic link; removed, never followed", shown.c_str());
        remove_bad(shard_text, name, info);
        return Read::Corrupt;
    }
    if (fstat(fd.get(), &info) != 0) return Read::Miss;
    uint64_t bound = std::min(max_bytes_, kMaxEntryBytes);
    // The whole entry in one read (its size is bounded above): a hit in a fresh process pays per
    // system call.
    std::vector<uint8_t> bytes;
    size_t head_size = std::min<size_t>(kEntryHeaderSize, size_t(info.st_size));
    EntryHeader header;
    if (!S_ISREG(info.st_mode)) {
        *why = format("cache entry '%s' is %s", shown.c_str(), kind_of(info.st_mode));
    } else if (info.st_uid != geteuid()) {
        *why = format("cache entry '%s' belongs to uid %u", shown.c_str(), static_cast<unsigned>(info.st_uid));
    } else if (uint64_t(info.st_size) > bound) {
        *why = format("cache entry '%s' is %lld bytes, more than the %llu an entry may have", shown.c_str(),
                      static_cast<long long>(info.st_size), static_cast<unsigned long long>(bound));
    } else if (!allocate(&bytes, size_t(info.st_size))) {
        return Read::Miss;  // too large for this process now: compile instead
    } else if (!pread_all(fd.get(), bytes.data(), bytes.size())) {
        return Read::Miss;  // shrank while being read: nothing to judge
    } else if (!read_entry_header(bytes.data(), head_size, &header) || header.total != uint64_t(info.st_size)) {
        CachedImage ignored;
        std::string reason;
        decode_entry(key, bytes.data(), head_size, &ignored, &reason);
        *why = format("cache entry '%s' is corrupt (%s)", shown.c_str(),
                      reason.empty() ? "its size disagrees with its header" : reason.c_str());
    } else {
        std::string reason;
        bool decoded = false;
        try {
            decoded = decode_entry(key, bytes.data(), bytes.size(), out, &reason);
        } catch (const std::bad_alloc&) {
            return Read::Miss;
        }
        if (decoded) {
            // The LRU clock: a hit makes the entry the most recently used. Best effort (read-only dirs).
            struct timespec now[2] = {{0, UTIME_NOW}, {0, UTIME_NOW}};
            futimens(fd.get(), now);
            return Read::Hit;
        }
        *why = format("cache entry '%s' is corrupt (%s)", shown.c_str(), reason.c_str());
    }
    *why += "; removed, compiling again";
    remove_bad(shard_text, name, info);
    return Read::Corrupt;
}

DiskStore::Read DiskStore::read_newest(int shard, const std::string& shard_text, const Key& key, CachedImage* out,
                                       std::string* why) {
    struct Candidate {
        std::string name;
        Key key;
        uint32_t nvrtc_version = 0;
        int64_t mtime_ns = 0;
    };
    std::vector<Candidate> candidates;
    DirListing listing = DirListing::of_descriptor(shard);
    if (!listing.ok()) return Read::Miss;
    while (struct dirent* item = listing.next()) {
        Candidate candidate;
        if (!parse_entry_name(shard_text, item->d_name, &candidate.key) || candidate.key.high != key.high ||
            candidate.key.low != key.low)
            continue;
        candidate.name = item->d_name;
        Fd fd(openat(shard, item->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        struct stat info;
        uint8_t head[kEntryHeaderSize];
        EntryHeader header;
        if (fd.ok() && fstat(fd.get(), &info) == 0 && S_ISREG(info.st_mode) && info.st_size >= off_t(sizeof head) &&
            pread_all(fd.get(), head, sizeof head) && read_entry_header(head, sizeof head, &header)) {
            candidate.nvrtc_version = header.nvrtc_version;
            candidate.mtime_ns = int64_t(info.st_mtim.tv_sec) * 1000000000 + info.st_mtim.tv_nsec;
        }
        candidates.push_back(std::move(candidate));  // unreadable ones last: read_exact judges them
        if (candidates.size() == kMaxCandidates) break;
    }
    std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
        return a.nvrtc_version != b.nvrtc_version ? a.nvrtc_version > b.nvrtc_version : a.mtime_ns > b.mtime_ns;
    });
    Read result = Read::Miss;
    for (const Candidate& candidate : candidates) {
        Read read = read_exact(shard, shard_text, candidate.name, candidate.key, out, why);
        if (read == Read::Hit) return read;
        if (read == Read::Corrupt) result = read;
    }
    return result;
}

DiskStore::Read DiskStore::read(const Key& key, CachedImage* out, std::string* why) {
    int kernels_fd = kernels(false, nullptr);
    if (kernels_fd < 0) return Read::Miss;
    std::string shard_text = shard_name(key);
    Fd shard = open_shard(kernels_fd, shard_text);
    struct stat info;
    if (!shard.ok() && (errno == ENOTDIR || errno == ELOOP) &&
        fstatat(kernels_fd, shard_text.c_str(), &info, AT_SYMLINK_NOFOLLOW) == 0) {
        *why = format("'%s/kernels/%s' is %s where a directory of entries belongs; removed", path_.c_str(),
                      shard_text.c_str(), kind_of(info.st_mode));
        remove_bad(shard_text, "", info);
        return Read::Corrupt;
    }
    if (!shard.ok() || fstat(shard.get(), &info) != 0) return Read::Miss;
    if (!check_private(info, path_ + "/kernels/" + shard_text, geteuid()).ok()) {
        *why = format("'%s/kernels/%s' is not a private directory of this user; removed with its entries",
                      path_.c_str(), shard_text.c_str());
        remove_bad(shard_text, "", info);
        return Read::Corrupt;
    }
    if (key.nvrtc == kAnyNvrtc) return read_newest(shard.get(), shard_text, key, out, why);
    return read_exact(shard.get(), shard_text, entry_file_name(key), key, out, why);
}

Problem DiskStore::locked_scan(DirectoryLock& lock, int kernels_fd, std::vector<ScannedEntry>* entries,
                               Removal* removal) {
    (void)lock;  // held by the caller: scans that sweep remove files
    Swept swept;
    Problem problem = scan_entries(kernels_fd, path_ + "/kernels", /*sweep=*/true, entries, &swept);
    removal->temps_removed += swept.temps;
    removal->removed_entries += swept.strays;
    return problem;
}

Problem DiskStore::write(const Key& key, const CachedImage& image, StoreReport* report, Durability durability) {
    const bool synced = durability == Durability::Synced;
    *report = StoreReport{};
    std::vector<uint8_t> bytes = encode_entry(key, image);
    Problem problem;
    int kernels_fd = kernels(true, &problem);
    if (kernels_fd < 0) return problem;
    std::string shard_text = shard_name(key), name = entry_file_name(key);
    std::string shard_path = path_ + "/kernels/" + shard_text;
    Fd shard;
    problem = open_subdirectory(kernels_fd, shard_text.c_str(), true, path_ + "/kernels", &shard);
    if (!problem.ok()) return problem;

    // The temp file, flocked so that sweepers know its writer is alive.
    std::string temp;
    Fd fd;
    for (int attempt = 0; attempt < 4 && !fd.ok(); ++attempt) {
        temp = "." + key.hex().substr(2) + "." + hex64(random_bits()) + ".tmp";
        fd = Fd(openat(shard.get(), temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!fd.ok() && errno != EEXIST) break;
    }
    if (!fd.ok()) return io_problem("creating the cache entry", shard_path + "/" + temp, errno);
    flock(fd.get(), LOCK_EX | LOCK_NB);
    if (!write_all(fd.get(), bytes.data(), bytes.size()) || (synced && fsync(fd.get()) != 0)) {
        int write_errno = errno;
        unlinkat(shard.get(), temp.c_str(), 0);
        return io_problem("writing the cache entry", shard_path + "/" + temp, write_errno);
    }

    DirectoryLock lock(directory_.get(), path_, lock_timeout_ms_);
    if (!lock.ok()) {
        unlinkat(shard.get(), temp.c_str(), 0);
        return lock.problem();
    }
    uint64_t ledger = 0;
    bool known = lock.read_ledger(&ledger);
    lock.begin_change();
    Removal removal;
    std::vector<ScannedEntry> entries;
    // Only regular files of this user count in the ledger (as in scans).
    auto counted = [](const struct stat& info) {
        return S_ISREG(info.st_mode) && info.st_uid == geteuid() ? uint64_t(info.st_size) : 0;
    };
    struct stat old;
    bool replacing = fstatat(shard.get(), name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
    uint64_t replaced = replacing ? counted(old) : 0;
    if (!known || ledger - std::min(ledger, replaced) + bytes.size() > max_bytes_) {
        // Make room first, so that the cap holds at every moment, also if this process dies.
        problem = locked_scan(lock, kernels_fd, &entries, &removal);
        if (!problem.ok()) {
            unlinkat(shard.get(), temp.c_str(), 0);
            return problem;
        }
        uint64_t low_water = max_bytes_ / 100 * kLowWaterPercent;
        report->evicted = evict_to(kernels_fd, &entries, low_water - std::min<uint64_t>(low_water, bytes.size())).entries;
        ledger = total_bytes(entries);
        replacing = fstatat(shard.get(), name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0;
        replaced = replacing ? counted(old) : 0;
    }
    // Something that is not an entry where this one belongs (a directory, a FIFO, a link):
    // removed, so the rename can take its place.
    if (replacing && !(S_ISREG(old.st_mode) && old.st_uid == geteuid())) {
        remove_tree_at(shard.get(), name.c_str());
        removal.removed_entries += 1;
    }
    if (renameat(shard.get(), temp.c_str(), shard.get(), name.c_str()) != 0) {
        int rename_errno = errno;
        unlinkat(shard.get(), temp.c_str(), 0);
        lock.write_ledger(ledger);
        return io_problem("publishing the cache entry", shard_path + "/" + name, rename_errno);
    }
    lock.write_ledger(ledger - std::min(ledger, replaced) + bytes.size());
    Swept swept;
    sweep_shard(shard.get(), shard_text, &swept);  // dead writers' temps of this shard
    report->temps_removed = removal.temps_removed + swept.temps;
    report->strays_removed = removal.removed_entries + swept.strays;
    if (synced) fsync(shard.get());  // durability only: an entry lost in a crash is a miss, never a wrong answer
    return Problem{};
}

Problem DiskStore::usage(uint64_t* out_entries, uint64_t* out_bytes) {
    *out_entries = 0;
    *out_bytes = 0;
    int kernels_fd = kernels(false, nullptr);
    if (kernels_fd < 0) return Problem{};
    std::vector<ScannedEntry> entries;
    Problem problem = scan_entries(kernels_fd, path_ + "/kernels", /*sweep=*/false, &entries);
    *out_entries = entries.size();
    *out_bytes = total_bytes(entries);
    return problem;
}

Problem DiskStore::prune(uint64_t max_bytes, Removal* out) {
    *out = Removal{};
    DirectoryLock lock(directory_.get(), path_, lock_timeout_ms_);
    if (!lock.ok()) return lock.problem();
    int kernels_fd = kernels(false, nullptr);
    if (kernels_fd < 0) return Problem{};  // nothing stored yet
    lock.begin_change();
    std::vector<ScannedEntry> entries;
    Problem problem = locked_scan(lock, kernels_fd, &entries, out);
    if (!problem.ok()) return problem;
    Evicted evicted = evict_to(kernels_fd, &entries, max_bytes);
    out->removed_entries += evicted.entries;
    out->removed_bytes = evicted.bytes;
    lock.write_ledger(total_bytes(entries));
    if (total_bytes(entries) <= max_bytes) return Problem{};
    Problem stuck;
    stuck.status = CUABI_ERROR_CACHE_IO;
    stuck.what = format("%zu cache entries (%llu bytes) in '%s/kernels' could not be removed", entries.size(),
                        static_cast<unsigned long long>(total_bytes(entries)), path_.c_str());
    stuck.fix = "make the cache directory writable by this user, or remove the files by hand";
    return stuck;
}

Problem DiskStore::clear(Removal* out) { return prune(0, out); }

Problem DiskStore::verify(Removal* out) {
    *out = Removal{};
    DirectoryLock lock(directory_.get(), path_, lock_timeout_ms_);
    if (!lock.ok()) return lock.problem();
    int kernels_fd = kernels(false, nullptr);
    if (kernels_fd < 0) return Problem{};
    lock.begin_change();
    std::vector<ScannedEntry> entries;
    Problem problem = locked_scan(lock, kernels_fd, &entries, out);
    if (!problem.ok()) return problem;
    uint64_t kept_bytes = 0;
    uint64_t bound = std::min(max_bytes_, kMaxEntryBytes);
    for (const ScannedEntry& entry : entries) {
        out->checked_entries += 1;
        Fd shard = open_shard(kernels_fd, entry.shard);
        Fd fd(shard.ok() ? openat(shard.get(), entry.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1);
        bool good = false, judged = true;
        if (fd.ok() && entry.bytes <= bound) {
            try {
                std::vector<uint8_t> bytes(entry.bytes);
                CachedImage image;
                std::string why;
                good = pread_all(fd.get(), bytes.data(), bytes.size()) &&
                       decode_entry(entry.key, bytes.data(), bytes.size(), &image, &why);
            } catch (const std::bad_alloc&) {
                judged = false;  // cannot tell now; a later verify will
            }
        }
        if (good || !judged) {
            kept_bytes += entry.bytes;
        } else if (shard.ok() && (unlinkat(shard.get(), entry.name.c_str(), 0) == 0 || errno == ENOENT)) {
            out->removed_entries += 1;
            out->removed_bytes += entry.bytes;
        } else {
            // The ledger stays dirty: the next holder rescans.
            return io_problem("removing the corrupt cache entry",
                              path_ + "/kernels/" + entry.shard + "/" + entry.name, errno);
        }
    }
    lock.write_ledger(kept_bytes);
    return Problem{};
}

}  // namespace cache
}  // namespace cuabi
