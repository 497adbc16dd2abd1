// The on-disk layer (docs/cache.md): one file per key under
// <dir>/kernels/<first 2 hex digits>/<remaining 30>.cuabi, in the format of entry_format.hpp.
//
// Publish: write a temp file in the entry's own shard directory, fsync it, then under the
// directory lock rename() it over the final name, update the ledger and evict if over the cap;
// finally fsync the shard directory. Readers open the final name without locking: they see a
// whole old entry or a whole new one, never a partial file. A hit stamps the file's mtime, which
// is the LRU clock for eviction. Every entry read is verified; a bad one is removed (under the
// lock, and only if the file is still the one that was read) and reported as corrupt.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cache_dir.hpp"
#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"

namespace cuabi {
namespace cache {

struct Removal {
    uint64_t checked_entries = 0;  // verify() only
    uint64_t removed_entries = 0;
    uint64_t removed_bytes = 0;
};

class DiskStore {
public:
    // `directory` must have passed prepare_directory().
    DiskStore(std::string directory, uint64_t max_bytes);

    enum class Read { Hit, Miss, Corrupt };
    // Corrupt: *why says what was wrong; the entry has been removed when the directory allows.
    Read read(const Key& key, CachedImage* out, std::string* why);

    // Publishes the entry; *out_evicted = entries evicted to stay under the cap.
    Problem write(const Key& key, const CachedImage& image, uint64_t* out_evicted);

    Problem usage(uint64_t* out_entries, uint64_t* out_bytes) const;
    Problem prune(uint64_t max_bytes, Removal* out);
    Problem clear(Removal* out);
    Problem verify(Removal* out);

    const std::string& directory() const { return directory_; }
    uint64_t max_bytes() const { return max_bytes_; }
    std::string entry_path(const Key& key) const;

private:
    std::string directory_;
    uint64_t max_bytes_;
};

}  // namespace cache
}  // namespace cuabi
