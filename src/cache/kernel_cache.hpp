// The kernel cache: compiled images by key, in this process's memory, on its disk and in
// read-only layers (readonly_layer.hpp).
//
// lookup() tries memory, then the disk, then the read-only layers in their order (a hit below
// memory is promoted to memory; a read-only hit is copied to the disk only with
// Config::readonly_copy); store() puts an image in memory and on disk. Neither ever fails a compile: a disk that is refused (unsafe) makes the cache work from
// memory for the process; a store that fails (read-only or full disk) pauses disk writes for a
// while (1 s, doubling up to 5 minutes while failures go on), after which writes are tried again;
// a lock held past its deadline sends that one store to memory only. stats() and
// degradation_reason() say which. The per-process cache is KernelCache::instance(), configured
// from the environment on first use (see docs/cache.md); tests build their own instances from an
// explicit Config.
//
// Thread-safe. A memory hit takes one shared lock of one of 16 shards and allocates nothing.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "cache/directory_lock.hpp"
#include "cache/disk_store.hpp"
#include "cache/memory_store.hpp"
#include "core/error.hpp"

namespace cuabi {
struct Counters;

namespace cache {
class ReadOnlyLayer;

enum class Layer { None, Memory, Disk, ReadOnly };

constexpr uint64_t kDefaultDiskMaxBytes = uint64_t(1) << 30;     // 1 GiB (CUABI_CACHE_MAX_BYTES)
constexpr uint64_t kDefaultMemoryMaxBytes = uint64_t(256) << 20;  // 256 MiB (CUABI_CACHE_MEMORY_MAX_BYTES)

struct Config {
    std::string directory;  // absolute; empty when no location could be found
    bool disk_disabled = false;
    std::string disabled_reason;  // why the disk layer is off before it was even tried
    uint64_t disk_max_bytes = kDefaultDiskMaxBytes;
    uint64_t memory_max_bytes = kDefaultMemoryMaxBytes;
    uint32_t lock_timeout_ms = kDefaultLockTimeoutMs;
    std::string warnings;  // ignored malformed environment values, said in the stats reason
    std::vector<std::string> readonly_layers;  // directories or bundle files, searched in this order
    bool readonly_copy = false;                // a read-only hit is also written to the disk layer

    // CUABI_CACHE_DIR, else $XDG_CACHE_HOME/cuabi, else $HOME/.cache/cuabi; CUABI_CACHE_DISABLE=1;
    // CUABI_CACHE_MAX_BYTES; CUABI_CACHE_MEMORY_MAX_BYTES; CUABI_CACHE_LOCK_TIMEOUT_MS;
    // CUABI_CACHE_READONLY_DIRS (':'-separated); CUABI_CACHE_READONLY_COPY=1.
    static Config from_environment();
};

// Mirrors cuabi_cache_stats (the API layer copies it field by field).
struct Stats {
    bool disk_enabled = false, disk_writable = false;
    uint64_t memory_hits = 0, memory_misses = 0, memory_entries = 0, memory_bytes = 0, memory_max_bytes = 0,
             memory_evictions = 0;
    uint64_t disk_hits = 0, disk_misses = 0, disk_entries = 0, disk_bytes = 0, disk_max_bytes = 0;
    uint64_t disk_stores = 0, disk_store_failures = 0, disk_corrupt_recovered = 0, disk_evictions = 0;
    uint64_t disk_lock_timeouts = 0, disk_temp_files_removed = 0;
    uint64_t readonly_layers = 0, readonly_hits = 0, readonly_misses = 0, readonly_refused = 0, readonly_copies = 0;
};

// What an export or an import did.
struct Transfer {
    uint64_t entries = 0;  // written to the bundle, or added to the disk layer
    uint64_t bytes = 0;    // the bundle's size (export), the entries' bytes (import)
    uint64_t refused = 0;  // damaged entries left out (import)
};

class KernelCache {
public:
    // The process-wide cache, configured from the environment on first use.
    static KernelCache& instance();

    explicit KernelCache(Config config);
    ~KernelCache();
    KernelCache(const KernelCache&) = delete;
    KernelCache& operator=(const KernelCache&) = delete;

    // The image stored under `key`, or nullptr (*out_layer = None). Bumps `counters` (may be
    // NULL): memory hit/miss, disk hit/miss, corrupt entries recovered. A corrupt or truncated
    // disk entry is removed, counted and reported as a miss so that the caller compiles again.
    std::shared_ptr<const CachedImage> lookup(const Key& key, Counters* counters, Layer* out_layer);
    // The two halves of lookup(), for callers that act between them (single-flight compiles).
    std::shared_ptr<const CachedImage> find_in_memory(const Key& key, Counters* counters);
    std::shared_ptr<const CachedImage> find_on_disk(const Key& key, Counters* counters);
    // The read-only layers, in order (opened on first use); a hit is promoted to memory.
    std::shared_ptr<const CachedImage> find_in_readonly(const Key& key, Counters* counters);
    // Everything below memory, in the lookup order: the disk, then the read-only layers.
    std::shared_ptr<const CachedImage> find_below_memory(const Key& key, Counters* counters, Layer* out_layer);

    // Adds a read-only layer after those there are (the environment's first). Refused layers are
    // an error here (ReadOnlyLayer::open's statuses, fail() with a Fix); the environment's are
    // skipped and said in degradation_reason().
    Status add_readonly_layer(const std::string& path);

    // Writes the disk layer's entries whose target or key (32 hex digits) matches the fnmatch
    // pattern `match` (nullptr or "": all) to a bundle at `path` (replaced atomically).
    Status export_bundle(const std::string& path, const char* match, Transfer* out);
    // Checks every entry of the bundle at `path` and adds the intact ones to the disk layer, as
    // untrusted entries; damaged ones are counted in out->refused and named in the last error.
    Status import_bundle(const std::string& path, Transfer* out);

    // Stores `image` in memory and, when the disk layer is writable, on disk. Never fails: a disk
    // failure is counted and pauses disk writes (see the file comment; reason in
    // degradation_reason()). Bumps counters->disk_cache_evictions for entries it evicted.
    // Durability::Unsynced only for entries that are cheap to get again (disk_store.hpp).
    void store(const Key& key, std::shared_ptr<const CachedImage> image, Counters* counters,
               Durability durability = Durability::Synced);

    // Process counters plus the directory's current entries and bytes (scans the directory).
    Stats stats();

    // The following act on the disk layer (and clear() on memory too). They open the disk layer
    // if needed and, unlike lookup/store, report a refused or failing directory as an error
    // (fail(): CUABI_ERROR_CACHE_UNSAFE, CUABI_ERROR_CACHE_IO) with a Fix. With the disk layer
    // switched off (CUABI_CACHE_DISABLE=1) they succeed and touch no file.
    Status prune(uint64_t max_bytes, Removal* out);  // evicts least recently used entries until <= max_bytes
    Status clear(Removal* out);                      // every entry, memory and disk
    Status verify(Removal* out);                     // reads every entry, removes bad ones
    // CUABI_ERROR_CACHE_UNSAFE / CUABI_ERROR_CACHE_IO when the disk layer was refused or failed.
    Status check_disk();
    // Opens the disk layer ahead of the first lookup -- the directory walk and its checks -- when
    // the cache directory already exists; creates nothing (a directory that does not exist yet is
    // left to the first store). Quiet: what it finds is reported by the lookups, as always.
    void open_existing_disk();

    const Config& config() const { return config_; }
    const std::string& directory() const { return config_.directory; }
    // Empty while the disk layer works; otherwise why it is off or read-only, with the fix.
    std::string degradation_reason();

private:
    DiskStore* disk();  // opens the disk layer on first use; nullptr when off or refused
    bool disk_writes_paused() const;
    void pause_disk_writes(const Problem& problem);
    void resume_disk_writes();
    void note_removal(const Removal& removal);
    Status report(const Problem& problem);
    std::vector<std::shared_ptr<ReadOnlyLayer>> readonly_layers();
    void note_readonly_problem(const std::string& problem);

    Config config_;
    MemoryStore memory_;

    std::once_flag disk_once_;
    std::unique_ptr<DiskStore> disk_;
    Problem disk_problem_;  // why disk_ is null, when it is (set once under disk_once_)
    std::atomic<int64_t> writes_paused_until_ns_{0};  // steady clock; 0: not paused
    std::mutex write_problem_mutex_;
    std::string write_problem_;  // why the last store did not reach the disk, until one does
    int64_t write_backoff_ns_ = 0;  // under write_problem_mutex_

    std::atomic<uint64_t> memory_hits_{0}, memory_misses_{0}, memory_evictions_{0}, disk_hits_{0}, disk_misses_{0};
    std::atomic<uint64_t> disk_stores_{0}, disk_store_failures_{0}, disk_corrupt_recovered_{0}, disk_evictions_{0};
    std::atomic<uint64_t> disk_lock_timeouts_{0}, disk_temp_files_removed_{0};

    std::once_flag readonly_once_;
    std::mutex readonly_mutex_;
    std::vector<std::shared_ptr<ReadOnlyLayer>> readonly_;  // under readonly_mutex_
    std::string readonly_problem_;  // the last layer refused or entry refused, under readonly_mutex_
    std::atomic<uint64_t> readonly_hits_{0}, readonly_misses_{0}, readonly_refused_{0}, readonly_copies_{0};
};

}  // namespace cache
}  // namespace cuabi
