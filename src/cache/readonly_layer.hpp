// A read-only cache layer: a cache directory filled elsewhere (a container image layer, a
// read-only mount) or a bundle file (bundle_format.hpp), searched after the writable directory.
//
// Never written, never locked, never pruned: the layer is opened once with O_RDONLY -- its
// directory or file descriptor is all that is kept, so a directory swapped in at the same path
// later is never seen -- and every later access is an openat() or pread() with O_RDONLY,
// without following links (nothing here ever opens for writing, creates, renames, removes or
// stamps a file). A bundle is used in place: its index is read and checked when it is opened,
// each entry is read (one pread) and checked when it is looked up.
//
// Its entries are untrusted (CachedImage::untrusted): they are checked as every disk entry is
// (format, checksum, the key they claim, plausibility) and a damaged one is refused alone, counted
// and reported -- never removed -- and what passes is still verified as the caller's bytes are
// before the driver loads it (compile/image_verifier.hpp). Thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cache/bundle_format.hpp"
#include "cache/cache_dir.hpp"
#include "cache/cache_key.hpp"
#include "cache/cached_image.hpp"
#include "cache/disk_store.hpp"

namespace cuabi {
namespace cache {

class ReadOnlyLayer {
public:
    // Opens `path`: a directory with a kernels/ subdirectory (a cuabi cache directory) or a bundle
    // file. CUABI_ERROR_CACHE_UNSAFE for a link, a FIFO, a device or a socket;
    // CUABI_ERROR_CACHE_IO for what cannot be opened or read, or a bundle whose header or index is
    // damaged; CUABI_ERROR_INVALID_ARGUMENT for a relative path.
    static Problem open(const std::string& path, std::unique_ptr<ReadOnlyLayer>* out);

    using Read = DiskStore::Read;
    // key.nvrtc == kAnyNvrtc: the entry of the newest NVRTC. Corrupt: *why says what was wrong.
    Read read(const Key& key, CachedImage* out, std::string* why);

    bool is_bundle() const { return is_bundle_; }
    const std::string& path() const { return path_; }
    // A bundle's index; empty for a directory.
    const std::vector<BundleRecord>& index() const { return index_; }
    // One bundle entry by its index record.
    Read read_record(const BundleRecord& record, CachedImage* out, std::string* why);
    // Entries the layer holds: a bundle's index size, a directory's entry files (a scan).
    uint64_t entries();

private:
    ReadOnlyLayer(std::string path, Fd fd, Fd kernels, bool is_bundle, std::vector<BundleRecord> index);
    Read read_file(int shard, const std::string& shown, const char* name, const Key& key, CachedImage* out,
                   std::string* why);
    Read read_directory(const Key& key, CachedImage* out, std::string* why);
    Read read_bundle(const Key& key, CachedImage* out, std::string* why);

    std::string path_;
    Fd fd_;       // the directory, or the bundle file
    Fd kernels_;  // a directory's kernels/
    bool is_bundle_;
    std::vector<BundleRecord> index_;
};

}  // namespace cache
}  // namespace cuabi
