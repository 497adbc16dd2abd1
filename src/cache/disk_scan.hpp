// Naming, listing and evicting the entries of a cache directory, all relative to the open
// kernels/ directory. Callers hold the DirectoryLock for anything that removes files.
//
//   kernels/<ab>/<30 hex>.<16 hex>.cuabi     an entry: <ab> + 30 hex digits are the request part
//                                            of its key, the 16 after the dot its NVRTC part
//   kernels/<ab>/.<30 hex>.<16 hex>.tmp      an entry being written; its writer holds a flock on
//                                            it until the rename, so an unlocked one is a dead
//                                            writer's and is swept
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_dir.hpp"
#include "cache/cache_key.hpp"

namespace cuabi {
namespace cache {

// An unlocked temp file younger than this may belong to a writer between its create and its
// flock; older ones are swept.
constexpr int64_t kTempGraceNs = int64_t(10) * 1000000000;

struct ScannedEntry {
    std::string shard;  // "ab"
    std::string name;   // file name within the shard
    Key key;            // parsed from shard + name
    uint64_t bytes = 0;
    int64_t mtime_ns = 0;
};

std::string shard_name(const Key& key);       // "ab"
std::string entry_file_name(const Key& key);  // "<30 hex>.<16 hex>.cuabi"
// Parses an entry file name of shard `shard`; false for anything else.
bool parse_entry_name(const std::string& shard, const char* name, Key* out);
bool is_temp_name(const char* name);

// What a sweeping scan removed.
struct Swept {
    uint64_t temps = 0;   // temp files of writers that died
    uint64_t strays = 0;  // anything else that is not an entry: links, FIFOs, directories, junk
};

// Every regular entry file under kernels/ (opened as `kernels`; `where` names it in messages).
// With `sweep`, also removes what does not belong (see Swept); without, leaves everything.
Problem scan_entries(int kernels, const std::string& where, bool sweep, std::vector<ScannedEntry>* out,
                     Swept* swept = nullptr);

// Removes what does not belong from the open shard directory `shard_text` ("ab"; see Swept).
void sweep_shard(int shard, const std::string& shard_text, Swept* swept);

uint64_t total_bytes(const std::vector<ScannedEntry>& entries);

// Removes least recently used entries (oldest mtime first) until at most `max_bytes` remain.
// `entries` is updated to what is left; returns what was removed.
struct Evicted {
    uint64_t entries = 0, bytes = 0;
};
Evicted evict_to(int kernels, std::vector<ScannedEntry>* entries, uint64_t max_bytes);

}  // namespace cache
}  // namespace cuabi
