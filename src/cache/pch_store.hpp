// The precompiled-header store: <cache directory>/pch/, beside kernels/ and driver-jit/.
//
// NVRTC writes and reads its precompiled headers (PCH) by path, so a PCH never goes from the
// store to NVRTC directly. Each compile gets a private work directory (work.<pid>.<n>, 0700)
// inside the store; a stored PCH is verified and then hard-linked into it (the inode that was
// verified, through its descriptor, never the name), and a PCH that NVRTC created there is
// verified and renamed into the store. Both stay on one file system, so publishing is atomic.
//
// A stored PCH is NVRTC's file, unchanged, named <key>-<checksum>.pch: the key (32 hex digits,
// compile/pch_policy.hpp) says which compiles may use it, the checksum (XXH3-128 of its bytes, 32
// hex digits) proves it is whole. Before use a PCH must be a regular file of this user, opened
// without following a link or blocking on a FIFO, no larger than kMaxPchBytes, whose bytes hash
// to the checksum in its name; anything else under a PCH name is removed and counted as refused.
// The store is bounded (kPchStoreMaxBytes, kPchStoreMaxFiles): the least recently used PCH go
// first. Work directories of workers that died are removed when their process is gone.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cache_dir.hpp"

namespace cuabi {
namespace cache {

// A PCH is a copy of NVRTC's PCH heap, which the compile worker sizes (pch_worker.hpp): no
// valid PCH is larger.
constexpr uint64_t kMaxPchBytes = uint64_t(512) << 20;
constexpr uint64_t kPchStoreMaxBytes = uint64_t(1) << 30;
constexpr uint32_t kPchStoreMaxFiles = 16;

struct PchStoreUsage {
    uint64_t files = 0;
    uint64_t bytes = 0;
};

// What happened to the PCH of one compile (reported by the worker, counted by the host).
struct PchFind {
    Fd file;              // the verified PCH, open; not ok() when none was found
    std::string name;     // its name in the store
    uint64_t refused = 0;  // damaged or foreign files under this key, removed
};

// Opens (creating when missing) the store under the cache directory `cache_directory`, with
// open_cache_directory()'s checks.
Problem open_pch_store(const std::string& cache_directory, Fd* out);

// Opens the store only when it exists (no Problem and !out->ok() when it does not).
Problem open_existing_pch_store(const std::string& cache_directory, Fd* out);

// The verified PCH stored under `key_hex`, removing every file under that key that fails the
// checks of the file comment. Marks the one found as used (its modification time), for eviction.
PchFind find_pch(int store, const std::string& key_hex);

// Removes the stored PCH `name` (NVRTC refused it: made by another NVRTC or process layout).
void remove_pch(int store, const std::string& name);

// A fresh private work directory in the store: its descriptor and name.
Problem make_pch_work_directory(int store, Fd* out, std::string* out_name);

// Verifies the PCH NVRTC wrote as `file_name` in `work` (a regular file of this user, at most
// kMaxPchBytes), syncs it and renames it into the store under `key_hex`, then evicts down to the
// store's bounds. False with *why when it was not published.
bool publish_pch(int work, const char* file_name, int store, const std::string& key_hex, std::string* why);

// Files and bytes of the PCH stored now.
PchStoreUsage pch_store_usage(int store);

// Removes the least recently used PCH until the store is within `max_bytes` and `max_files`,
// and work directories whose process is gone. Returns how many PCH it removed.
uint64_t evict_pch(int store, uint64_t max_bytes, uint32_t max_files);

// The checksum part of a PCH name for `bytes`: 32 hex digits of XXH3-128.
std::string pch_checksum_hex(const void* bytes, size_t size);

}  // namespace cache
}  // namespace cuabi
