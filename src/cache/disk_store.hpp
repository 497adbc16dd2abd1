// The on-disk layer (docs/cache.md): one file per key under kernels/<ab>/ (see disk_scan.hpp)
// in the format of entry_format.hpp, every operation relative to the directory opened once by
// open_cache_directory().
//
// Publish: write a temp file in the entry's own shard directory (flocked by its writer), fsync
// it, then under the directory lock make room below the cap, rename() it over the final name and
// write the ledger; finally fsync the shard directory (both fsyncs skipped for Durability::Unsynced). Readers open the final name without
// locking and without following links: they see a whole old entry or a whole new one, never a
// partial file. A hit stamps the file's mtime, which is the LRU clock for eviction. Every entry
// read is checked -- a regular file of the effective user, of sane size (checked before anything
// is allocated), intact and plausible -- and anything else found where an entry belongs (a FIFO,
// a link, a directory, a damaged file) is removed under the lock, and only if it is still what
// was looked at, and reported as corrupt.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include "cache/cache_dir.hpp"
#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

// No NVRTC output comes near this; a larger file is damage (or a sparse forgery) and is removed
// without reading it.
constexpr uint64_t kMaxEntryBytes = uint64_t(1) << 30;

struct Removal {
    uint64_t checked_entries = 0;  // verify() only
    uint64_t removed_entries = 0;  // entries, and for verify()/clear() anything else that did not belong
    uint64_t removed_bytes = 0;
    uint64_t temps_removed = 0;    // temp files of writers that died
};

// How a publish reaches the disk. Synced: the temp file is fsynced before the rename and the shard
// directory after it, so that a crash loses no entry that cost a compile (80 ms to seconds of
// NVRTC, far above the two fsyncs). Unsynced: neither, for entries that are cheap to get again
// (a remote hit: a fetch of well under 1 ms, where the fsyncs cost ~10 ms): after a crash such an
// entry may be missing or torn; a torn one fails its size or checksum check when read, is removed
// as corrupt, and the lookup goes on to the remote, which serves it again.
enum class Durability { Synced, Unsynced };

// What a publish did besides publishing.
struct StoreReport {
    uint64_t evicted = 0;
    uint64_t temps_removed = 0;
    uint64_t strays_removed = 0;  // things that were not entries where entries belong
};

class DiskStore {
public:
    // Opens and checks `directory` (open_cache_directory) and returns the store in *out.
    static Problem open(const std::string& directory, uint64_t max_bytes, uint32_t lock_timeout_ms,
                        std::unique_ptr<DiskStore>* out);
    DiskStore(Fd directory, std::string path, uint64_t max_bytes, uint32_t lock_timeout_ms);
    ~DiskStore();

    enum class Read { Hit, Miss, Corrupt };
    // key.nvrtc == kAnyNvrtc: the entry of any NVRTC, newest NVRTC (then most recently used)
    // first. Corrupt: *why says what was wrong; it has been removed when the lock allowed.
    Read read(const Key& key, CachedImage* out, std::string* why);

    // Publishes the entry. A lock held past the deadline is CUABI_ERROR_TIMEOUT.
    Problem write(const Key& key, const CachedImage& image, StoreReport* report,
                  Durability durability = Durability::Synced);

    Problem usage(uint64_t* out_entries, uint64_t* out_bytes);
    Problem prune(uint64_t max_bytes, Removal* out);
    Problem clear(Removal* out);
    Problem verify(Removal* out);

    // Opens kernels/ ahead of the first read when it exists (never creates it).
    void open_existing_kernels() { kernels(false, nullptr); }

    const std::string& directory() const { return path_; }
    uint64_t max_bytes() const { return max_bytes_; }
    int fd() const { return directory_.get(); }
    // "kernels/ab/<30 hex>.<16 hex>.cuabi", relative to the directory.
    static std::string entry_path(const Key& key);

private:
    int kernels(bool create, Problem* problem);  // the open kernels/ directory, or -1
    Read read_exact(int shard, const std::string& shard_text, const std::string& name, const Key& key,
                    CachedImage* out, std::string* why);
    Read read_newest(int shard, const std::string& shard_text, const Key& key, CachedImage* out, std::string* why);
    void remove_bad(const std::string& shard_text, const std::string& name, const struct stat& seen);
    Problem locked_scan(class DirectoryLock& lock, int kernels_fd, std::vector<struct ScannedEntry>* entries,
                        Removal* removal);

    Fd directory_;
    std::string path_;
    uint64_t max_bytes_;
    uint32_t lock_timeout_ms_;
    std::mutex kernels_mutex_;
    std::atomic<int> kernels_{-1};
};

}  // namespace cache
}  // namespace cuabi
