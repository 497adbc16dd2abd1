// Entry points of the "Cache" group of cuabi.h: argument checks, then the kernel cache.
#include <limits.h>
#include <string.h>

#include <string>

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "api/versioned_struct.hpp"
#include "cache/driver_jit_cache.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/remote_tier.hpp"
#include "compile/compiler.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

namespace {

static_assert(static_cast<int32_t>(cache::Source::DriverDefault) == CUABI_SETTING_DRIVER_DEFAULT &&
                  static_cast<int32_t>(cache::Source::Environment) == CUABI_SETTING_ENVIRONMENT &&
                  static_cast<int32_t>(cache::Source::Cuabi) == CUABI_SETTING_CUABI,
              "cache::Source must spell the CUABI_SETTING_* values");

// What a prune, clear or verify reports: on success the two counts the call returns, each to its
// output when the caller passed one.
Status report(Status status, uint64_t first, uint64_t* out_first, uint64_t second, uint64_t* out_second) {
    if (status != CUABI_SUCCESS) return status;
    if (out_first != nullptr) *out_first = first;
    if (out_second != nullptr) *out_second = second;
    return CUABI_SUCCESS;
}

// A file path the caller names, or a pattern of paths: no longer than a path can be, so that it
// is quoted whole in messages (bounded) and never walked in megabytes.
Status require_path(const char* text, const char* name) {
    if (Status status = require_pointer(text, name)) return status;
    if (strnlen(text, PATH_MAX + 1) <= PATH_MAX) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a path of at most PATH_MAX bytes",
                "%s is longer than any path (PATH_MAX, %d bytes): %s", name, PATH_MAX, bounded(text).c_str());
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_cache_configure_driver_jit(void) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    cache::configure_driver_jit_cache();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_get_stats(cuabi_cache_stats* out_stats) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (Status status = require_output(out_stats, "out_stats")) return status;
    cache::Stats s = cache::KernelCache::instance().stats();
    cuabi_cache_stats out CUABI_CACHE_STATS_INIT;
    out.disk_enabled = s.disk_enabled;
    out.disk_writable = s.disk_writable;
    out.memory_hits = s.memory_hits;
    out.memory_misses = s.memory_misses;
    out.memory_entries = s.memory_entries;
    out.memory_bytes = s.memory_bytes;
    out.memory_max_bytes = s.memory_max_bytes;
    out.memory_evictions = s.memory_evictions;
    out.disk_hits = s.disk_hits;
    out.disk_misses = s.disk_misses;
    out.disk_entries = s.disk_entries;
    out.disk_bytes = s.disk_bytes;
    out.disk_max_bytes = s.disk_max_bytes;
    out.disk_stores = s.disk_stores;
    out.disk_store_failures = s.disk_store_failures;
    out.disk_corrupt_recovered = s.disk_corrupt_recovered;
    out.disk_evictions = s.disk_evictions;
    out.disk_lock_timeouts = s.disk_lock_timeouts;
    out.disk_temp_files_removed = s.disk_temp_files_removed;
    out.readonly_layers = s.readonly_layers;
    out.readonly_hits = s.readonly_hits;
    out.readonly_misses = s.readonly_misses;
    out.readonly_refused = s.readonly_refused;
    out.readonly_copies = s.readonly_copies;
    if (cache::RemoteTier* remote = cache::RemoteTier::instance()) {
        cache::RemoteStats r = remote->stats();
        out.remote_configured = 1;
        out.remote_breaker_open = r.breaker != cache::RemoteBreaker::Closed;
        out.remote_hits = r.hits;
        out.remote_misses = r.misses;
        out.remote_errors = r.errors;
        out.remote_refused = r.refused;
        out.remote_publishes = r.publishes;
        out.remote_lease_waits = r.lease_waits;
        out.remote_lease_wait_hits = r.lease_wait_hits;
        out.remote_breaker_opens = r.breaker_opens;
    }
    CompileStats compiles = compile_stats();
    out.nvrtc_state = compiles.nvrtc_state;
    out.compiles = compiles.compiles;
    out.compiles_joined = compiles.compiles_joined;
    return write_output(out, out_stats);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_get_directory(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    return copy_text_out(cache::KernelCache::instance().directory(), out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_get_degradation_reason(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    return copy_text_out(cache::KernelCache::instance().degradation_reason(), out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_prune(uint64_t max_bytes, uint64_t* out_removed_entries, uint64_t* out_removed_bytes) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    cache::Removal removal;
    Status status = cache::KernelCache::instance().prune(max_bytes, &removal);
    return report(status, removal.removed_entries, out_removed_entries, removal.removed_bytes, out_removed_bytes);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_clear(uint64_t* out_removed_entries, uint64_t* out_removed_bytes) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    cache::Removal removal;
    Status status = cache::KernelCache::instance().clear(&removal);
    return report(status, removal.removed_entries, out_removed_entries, removal.removed_bytes, out_removed_bytes);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_verify(uint64_t* out_checked_entries, uint64_t* out_removed_entries) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    cache::Removal removal;
    Status status = cache::KernelCache::instance().verify(&removal);
    return report(status, removal.checked_entries, out_checked_entries, removal.removed_entries, out_removed_entries);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_add_readonly_layer(const char* path) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (Status status = require_path(path, "path")) return status;
    return cache::KernelCache::instance().add_readonly_layer(path);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_export(const char* path, const char* match, uint64_t* out_entries,
                                          uint64_t* out_bytes) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_path(path, "path");
    if (status == CUABI_SUCCESS && match != nullptr) status = require_path(match, "match");
    if (status != CUABI_SUCCESS) return status;
    cache::Transfer transfer;
    status = cache::KernelCache::instance().export_bundle(path, match, &transfer);
    return report(status, transfer.entries, out_entries, transfer.bytes, out_bytes);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_import(const char* path, uint64_t* out_imported, uint64_t* out_refused) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_path(path, "path");
    if (status != CUABI_SUCCESS) return status;
    cache::Transfer transfer;
    status = cache::KernelCache::instance().import_bundle(path, &transfer);
    // The counts also on failure: a bundle with some damaged entries imported the others.
    report(CUABI_SUCCESS, transfer.entries, out_imported, transfer.refused, out_refused);
    return status;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_get_driver_jit_info(cuabi_driver_jit_cache_info* out_info) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (Status status = require_output(out_info, "out_info")) return status;
    const cache::DriverJitSettings settings = cache::driver_jit_settings();
    cuabi_driver_jit_cache_info out CUABI_DRIVER_JIT_CACHE_INFO_INIT;
    out.enabled = settings.enabled;
    out.path_source = static_cast<int32_t>(settings.path_source);
    out.max_bytes_source = static_cast<int32_t>(settings.max_bytes_source);
    out.max_bytes = settings.max_bytes;
    out.driver_started_first = settings.driver_started_first;
    return write_output(out, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_get_driver_jit_path(char* out_text, size_t capacity, size_t* out_size) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (Status status = require_pointer(out_size, "out_size")) return status;  // before the settings are read
    return copy_text_out(cache::driver_jit_settings().path, out_text, capacity, out_size);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
