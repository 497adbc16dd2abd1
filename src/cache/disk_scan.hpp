// Listing and evicting the entries of a cache directory. Callers hold the DirectoryLock for
// anything that removes files.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_dir.hpp"
#include "cache/cache_key.hpp"

namespace cuabi {
namespace cache {

struct ScannedEntry {
    std::string path;
    Key key;             // parsed from the path
    uint64_t bytes = 0;  // file size
    int64_t mtime_ns = 0;
};

// Every regular file named like an entry (<dir>/kernels/xx/<30 hex>.cuabi). Other files are
// left alone, except temp files of a crashed writer (".*.tmp" older than an hour), which are
// removed when `remove_stale_temps` is set.
Problem scan_entries(const std::string& directory, bool remove_stale_temps, std::vector<ScannedEntry>* out);

uint64_t total_bytes(const std::vector<ScannedEntry>& entries);

// Removes least recently used entries (oldest mtime first) until at most `max_bytes` remain.
// `entries` is updated to what is left; returns what was removed.
struct Evicted {
    uint64_t entries = 0, bytes = 0;
};
Evicted evict_to(std::vector<ScannedEntry>* entries, uint64_t max_bytes);

}  // namespace cache
}  // namespace cuabi
