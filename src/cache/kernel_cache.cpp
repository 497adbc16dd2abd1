#include "cache/kernel_cache.hpp"

#include <sys/stat.h>

#include <time.h>

#include <algorithm>
#include <new>

#include "cache/readonly_layer.hpp"
#include "device/context.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace cache {
namespace {

void bump(Counters* counters, std::atomic<uint64_t> Counters::*counter, uint64_t by = 1) {
    if (counters != nullptr && by != 0) Counters::bump(counters->*counter, by);
}

void add(std::atomic<uint64_t>& counter, uint64_t by = 1) { counter.fetch_add(by, std::memory_order_relaxed); }

uint64_t get(const std::atomic<uint64_t>& counter) { return counter.load(std::memory_order_relaxed); }

constexpr int64_t kFirstBackoffNs = int64_t(1) * 1000000000;
constexpr int64_t kLastBackoffNs = int64_t(300) * 1000000000;

int64_t steady_ns() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000000000 + now.tv_nsec;
}

}  // namespace

KernelCache& KernelCache::instance() {
    // Never destroyed: kernels may be compiled from static destructors of other libraries.
    static KernelCache* cache = new KernelCache(Config::from_environment());
    return *cache;
}

KernelCache::KernelCache(Config config) : config_(std::move(config)), memory_(config_.memory_max_bytes) {}

KernelCache::~KernelCache() = default;

DiskStore* KernelCache::disk() {
    std::call_once(disk_once_, [this] {
        if (config_.disk_disabled) {
            disk_problem_.status = CUABI_ERROR_UNSUPPORTED;
            disk_problem_.what = config_.disabled_reason;
            return;
        }
        disk_problem_ = DiskStore::open(config_.directory, config_.disk_max_bytes, config_.lock_timeout_ms, &disk_);
    });
    return disk_.get();
}

void KernelCache::open_existing_disk() {
    // Only an existing directory: opening a missing one would create it, for a process that may
    // never compile. (Removed between this check and the walk, it is created, as a store would.)
    struct stat info;
    if (config_.disk_disabled || stat(config_.directory.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) return;
    if (DiskStore* store = disk()) store->open_existing_kernels();
}

bool KernelCache::disk_writes_paused() const {
    int64_t until = writes_paused_until_ns_.load(std::memory_order_relaxed);
    return until != 0 && steady_ns() < until;
}

void KernelCache::pause_disk_writes(const Problem& problem) {
    std::lock_guard<std::mutex> lock(write_problem_mutex_);
    if (problem.status == CUABI_ERROR_TIMEOUT) {
        // Someone else holds the lock: this store goes to memory, the next one tries again.
        add(disk_lock_timeouts_);
        write_problem_ = "the last new entry was kept in memory only: " + problem.message();
        return;
    }
    add(disk_store_failures_);
    write_backoff_ns_ = std::min(std::max(write_backoff_ns_ * 2, kFirstBackoffNs), kLastBackoffNs);
    writes_paused_until_ns_.store(steady_ns() + write_backoff_ns_, std::memory_order_relaxed);
    write_problem_ = format("disk cache writes paused for %lld s, new entries are kept in memory only: ",
                            static_cast<long long>(write_backoff_ns_ / 1000000000)) +
                     problem.message();
}

void KernelCache::resume_disk_writes() {
    std::lock_guard<std::mutex> lock(write_problem_mutex_);
    write_backoff_ns_ = 0;
    writes_paused_until_ns_.store(0, std::memory_order_relaxed);
    write_problem_.clear();
}

std::shared_ptr<const CachedImage> KernelCache::find_in_memory(const Key& key, Counters* counters) {
    range::Scope scope(range::Phase::CacheLookupMemory);
    std::shared_ptr<const CachedImage> hit = memory_.find(key);
    if (hit != nullptr) {
        add(memory_hits_);
        bump(counters, &Counters::memory_cache_hits);
    } else {
        add(memory_misses_);
        bump(counters, &Counters::memory_cache_misses);
    }
    return hit;
}

std::shared_ptr<const CachedImage> KernelCache::find_on_disk(const Key& key, Counters* counters) {
    DiskStore* store = disk();
    if (store == nullptr) return nullptr;
    std::string hex = key.hex();
    range::Scope scope(range::Phase::CacheLookupDisk, hex.c_str());
    std::shared_ptr<CachedImage> image;
    std::string why;
    DiskStore::Read read = DiskStore::Read::Miss;
    try {
        image = std::make_shared<CachedImage>();
        read = store->read(key, image.get(), &why);
    } catch (const std::bad_alloc&) {  // an entry too large for this process now: compile instead
        read = DiskStore::Read::Miss;
    }
    if (read != DiskStore::Read::Hit) {
        if (read == DiskStore::Read::Corrupt) {
            add(disk_corrupt_recovered_);
            bump(counters, &Counters::disk_cache_corrupt_recovered);
        }
        add(disk_misses_);
        bump(counters, &Counters::disk_cache_misses);
        return nullptr;
    }
    add(disk_hits_);
    bump(counters, &Counters::disk_cache_hits);
    add(memory_evictions_, memory_.insert(key, image));
    return image;
}

std::shared_ptr<const CachedImage> KernelCache::lookup(const Key& key, Counters* counters, Layer* out_layer) {
    std::shared_ptr<const CachedImage> found = find_in_memory(key, counters);
    *out_layer = found != nullptr ? Layer::Memory : Layer::None;
    if (found != nullptr) return found;
    return find_below_memory(key, counters, out_layer);
}

std::shared_ptr<const CachedImage> KernelCache::find_below_memory(const Key& key, Counters* counters,
                                                                  Layer* out_layer) {
    *out_layer = Layer::None;
    std::shared_ptr<const CachedImage> found = find_on_disk(key, counters);
    if (found != nullptr) {
        *out_layer = Layer::Disk;
        return found;
    }
    found = find_in_readonly(key, counters);
    if (found != nullptr) *out_layer = Layer::ReadOnly;
    return found;
}

void KernelCache::store(const Key& key, std::shared_ptr<const CachedImage> image, Counters* counters,
                        Durability durability) {
    if (image == nullptr) return;
    add(memory_evictions_, memory_.insert(key, image));
    DiskStore* store = disk();
    if (store == nullptr || disk_writes_paused()) return;
    std::string hex = key.hex();
    range::Scope scope(range::Phase::CacheStore, hex.c_str());
    StoreReport report;
    Problem problem;
    try {
        problem = store->write(key, *image, &report, durability);
    } catch (const std::bad_alloc&) {
        problem.status = CUABI_ERROR_OUT_OF_HOST_MEMORY;
        problem.what = format("encoding a %zu-byte image for the disk cache ran out of memory", image->image.size());
        problem.fix = "free host memory or lower CUABI_CACHE_MEMORY_MAX_BYTES";
    }
    add(disk_temp_files_removed_, report.temps_removed);
    add(disk_corrupt_recovered_, report.strays_removed);
    if (!problem.ok()) {
        pause_disk_writes(problem);
        return;
    }
    resume_disk_writes();
    add(disk_stores_);
    add(disk_evictions_, report.evicted);
    bump(counters, &Counters::disk_cache_evictions, report.evicted);
}

Stats KernelCache::stats() {
    Stats stats;
    DiskStore* store = disk();
    stats.disk_enabled = store != nullptr;
    stats.disk_writable = store != nullptr && !disk_writes_paused();
    stats.memory_hits = get(memory_hits_);
    stats.memory_misses = get(memory_misses_);
    stats.memory_entries = memory_.entries();
    stats.memory_bytes = memory_.bytes();
    stats.memory_max_bytes = memory_.max_bytes();
    stats.memory_evictions = get(memory_evictions_);
    stats.disk_hits = get(disk_hits_);
    stats.disk_misses = get(disk_misses_);
    stats.disk_max_bytes = config_.disk_max_bytes;
    stats.disk_stores = get(disk_stores_);
    stats.disk_store_failures = get(disk_store_failures_);
    stats.disk_corrupt_recovered = get(disk_corrupt_recovered_);
    stats.disk_evictions = get(disk_evictions_);
    stats.disk_lock_timeouts = get(disk_lock_timeouts_);
    stats.disk_temp_files_removed = get(disk_temp_files_removed_);
    if (store != nullptr) store->usage(&stats.disk_entries, &stats.disk_bytes);  // unreadable: zeros
    stats.readonly_layers = readonly_layers().size();
    stats.readonly_hits = get(readonly_hits_);
    stats.readonly_misses = get(readonly_misses_);
    stats.readonly_refused = get(readonly_refused_);
    stats.readonly_copies = get(readonly_copies_);
    return stats;
}

Status KernelCache::check_disk() {
    if (disk() != nullptr || disk_problem_.status == CUABI_ERROR_UNSUPPORTED) return CUABI_SUCCESS;
    return fail(disk_problem_.status, disk_problem_.fix.c_str(), "%s", disk_problem_.what.c_str());
}

void KernelCache::note_removal(const Removal& removal) {
    add(disk_temp_files_removed_, removal.temps_removed);
}

Status KernelCache::report(const Problem& problem) {
    if (problem.ok()) return CUABI_SUCCESS;
    if (problem.status == CUABI_ERROR_TIMEOUT) add(disk_lock_timeouts_);
    return fail(problem.status, problem.fix.c_str(), "%s", problem.what.c_str());
}

Status KernelCache::prune(uint64_t max_bytes, Removal* out) {
    *out = Removal{};
    Status status = check_disk();
    if (status != CUABI_SUCCESS || disk_ == nullptr) return status;
    Problem problem = disk_->prune(max_bytes, out);
    add(disk_evictions_, out->removed_entries);
    note_removal(*out);
    return report(problem);
}

Status KernelCache::clear(Removal* out) {
    *out = Removal{};
    memory_.clear();
    Status status = check_disk();
    if (status != CUABI_SUCCESS || disk_ == nullptr) return status;
    Problem problem = disk_->clear(out);
    note_removal(*out);
    return report(problem);
}

Status KernelCache::verify(Removal* out) {
    *out = Removal{};
    Status status = check_disk();
    if (status != CUABI_SUCCESS || disk_ == nullptr) return status;
    Problem problem = disk_->verify(out);
    add(disk_corrupt_recovered_, out->removed_entries);
    note_removal(*out);
    return report(problem);
}

std::string KernelCache::degradation_reason() {
    std::string reason;
    if (disk() == nullptr) {
        reason = disk_problem_.status == CUABI_ERROR_UNSUPPORTED ? disk_problem_.what
                                                                 : "disk cache refused, using memory only: " +
                                                                       disk_problem_.message();
    } else {
        std::lock_guard<std::mutex> lock(write_problem_mutex_);
        reason = write_problem_;
    }
    readonly_layers();  // opens the environment's layers, whose refusals belong here
    {
        std::lock_guard<std::mutex> lock(readonly_mutex_);
        if (!readonly_problem_.empty()) reason += (reason.empty() ? "" : " ") + readonly_problem_;
    }
    if (!config_.warnings.empty()) reason += (reason.empty() ? "" : " ") + config_.warnings;
    return reason;
}

}  // namespace cache
}  // namespace cuabi
