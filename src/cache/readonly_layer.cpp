#include "cache/readonly_layer.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <cstring>
#include <new>

#include "cache/disk_scan.hpp"
#include "cache/entry_format.hpp"
#include "cache/file_io.hpp"
#include "core/dir_listing.hpp"

namespace cuabi {
namespace cache {
namespace {

// Entries of one request from different NVRTCs considered by a lookup without NVRTC.
constexpr size_t kMaxCandidates = 16;

constexpr int kReadFlags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC;

Problem refused(Status status, std::string what, std::string fix) {
    Problem problem;
    problem.status = status;
    problem.what = std::move(what);
    problem.fix = std::move(fix);
    return problem;
}

const char* kLayerFix = "name a cache directory filled by cuabi or a bundle written by 'cuabi cache export' in "
                        "CUABI_CACHE_READONLY_DIRS (or cuabi_cache_add_readonly_layer())";

// The whole entry of `size` bytes at `offset`, checked as the entry for `key`.
DiskStore::Read decode_at(int fd, uint64_t offset, uint64_t size, const Key& key, const std::string& shown,
                          CachedImage* out, std::string* why) {
    std::vector<uint8_t> bytes;
    try {
        bytes.resize(size);
    } catch (const std::bad_alloc&) {
        return DiskStore::Read::Miss;  // too large for this process now: compile instead
    }
    if (!pread_all(fd, bytes.data(), bytes.size(), offset)) {
        *why = format("read-only cache entry %s could not be read whole (%llu bytes)", shown.c_str(),
                      static_cast<unsigned long long>(size));
        return DiskStore::Read::Corrupt;
    }
    std::string reason;
    bool decoded = false;
    try {
        decoded = decode_entry(key, bytes.data(), bytes.size(), out, &reason);
    } catch (const std::bad_alloc&) {
        return DiskStore::Read::Miss;
    }
    if (!decoded) {
        *why = format("read-only cache entry %s is refused (%s)", shown.c_str(), reason.c_str());
        return DiskStore::Read::Corrupt;
    }
    out->untrusted = true;
    return DiskStore::Read::Hit;
}

}  // namespace

ReadOnlyLayer::ReadOnlyLayer(std::string path, Fd fd, Fd kernels, bool is_bundle, std::vector<BundleRecord> index)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      kernels_(std::move(kernels)),
      is_bundle_(is_bundle),
      index_(std::move(index)) {}

Problem ReadOnlyLayer::open(const std::string& path, std::unique_ptr<ReadOnlyLayer>* out) {
    if (path.empty() || path[0] != '/')
        return refused(CUABI_ERROR_INVALID_ARGUMENT,
                       format("read-only cache layer '%s' is not an absolute path", path.c_str()),
                       "name the layer by its absolute path");
    Fd fd(::open(path.c_str(), kReadFlags));
    struct stat info;
    if (!fd.ok()) {
        int error = errno;
        if (error == ELOOP)
            return refused(CUABI_ERROR_CACHE_UNSAFE,
                           format("read-only cache layer '%s' is a symbolic link; links are never followed",
                                  path.c_str()),
                           "name the directory or bundle the link points to");
        Problem problem = io_problem("opening the read-only cache layer", path, error);
        problem.fix = kLayerFix;
        return problem;
    }
    if (fstat(fd.get(), &info) != 0) return io_problem("examining the read-only cache layer", path, errno);
    if (S_ISDIR(info.st_mode)) {
        Fd kernels(openat(fd.get(), "kernels", kReadFlags | O_DIRECTORY));
        if (!kernels.ok())
            return refused(CUABI_ERROR_CACHE_IO,
                           format("read-only cache layer '%s' is not a cuabi cache directory: '%s/kernels' %s",
                                  path.c_str(), path.c_str(),
                                  errno == ENOENT ? "does not exist" : errno == ELOOP ? "is a symbolic link"
                                                                                      : std::strerror(errno)),
                           kLayerFix);
        out->reset(new ReadOnlyLayer(path, std::move(fd), std::move(kernels), false, {}));
        return Problem{};
    }
    if (!S_ISREG(info.st_mode))
        return refused(CUABI_ERROR_CACHE_UNSAFE,
                       format("read-only cache layer '%s' is %s, neither a directory nor a bundle file", path.c_str(),
                              kind_of(info.st_mode)),
                       kLayerFix);
    uint64_t file_size = uint64_t(info.st_size);
    uint8_t header[kBundleHeaderSize] = {};
    size_t head_size = file_size < kBundleHeaderSize ? size_t(file_size) : kBundleHeaderSize;
    if (!pread_all(fd.get(), header, head_size)) return io_problem("reading the cache bundle", path, errno);
    std::vector<uint8_t> head(header, header + head_size);
    uint64_t needed = head_size < kBundleHeaderSize ? head_size : bundle_index_bytes(header);
    if (needed > head_size && needed <= file_size) {
        try {
            head.resize(needed);
        } catch (const std::bad_alloc&) {
            return refused(CUABI_ERROR_OUT_OF_HOST_MEMORY,
                           format("the index of cache bundle '%s' (%llu bytes) does not fit in memory", path.c_str(),
                                  static_cast<unsigned long long>(needed)),
                           "free host memory, or split the bundle with 'cuabi cache export --match'");
        }
        if (!pread_all(fd.get(), head.data() + head_size, needed - head_size, head_size))
            return io_problem("reading the cache bundle's index", path, errno ? errno : EIO);
    }
    std::vector<BundleRecord> index;
    std::string why;
    if (!decode_bundle_index(head.data(), head.size(), file_size, &index, &why))
        return refused(CUABI_ERROR_CACHE_IO,
                       format("cache bundle '%s' (%llu bytes) is refused: %s", path.c_str(),
                              static_cast<unsigned long long>(file_size), why.c_str()),
                       "write the bundle again with 'cuabi cache export', and copy it whole");
    out->reset(new ReadOnlyLayer(path, std::move(fd), Fd(), true, std::move(index)));
    return Problem{};
}

ReadOnlyLayer::Read ReadOnlyLayer::read(const Key& key, CachedImage* out, std::string* why) {
    return is_bundle_ ? read_bundle(key, out, why) : read_directory(key, out, why);
}

ReadOnlyLayer::Read ReadOnlyLayer::read_record(const BundleRecord& record, CachedImage* out, std::string* why) {
    std::string shown = format("%s.%016llx in bundle '%s'", record.key.hex().c_str(),
                               static_cast<unsigned long long>(record.key.nvrtc), path_.c_str());
    return decode_at(fd_.get(), record.offset, record.size, record.key, shown, out, why);
}

ReadOnlyLayer::Read ReadOnlyLayer::read_bundle(const Key& key, CachedImage* out, std::string* why) {
    const BundleRecord* record = find_bundle_record(index_, key);
    if (record == nullptr) return Read::Miss;
    if (key.nvrtc != kAnyNvrtc) return read_record(*record, out, why);
    // Any NVRTC: the request's records are adjacent; the newest NVRTC's intact entry wins.
    Read result = Read::Miss;
    const BundleRecord* end = index_.data() + index_.size();
    for (size_t seen = 0; record != end && record->key.high == key.high && record->key.low == key.low &&
                          seen < kMaxCandidates;
         ++record, ++seen) {
        CachedImage candidate;
        Read read = read_record(*record, &candidate, why);
        if (read == Read::Corrupt) result = Read::Corrupt;
        if (read == Read::Hit && (result != Read::Hit || candidate.nvrtc_version > out->nvrtc_version)) {
            *out = std::move(candidate);
            result = Read::Hit;
        }
    }
    return result;
}

ReadOnlyLayer::Read ReadOnlyLayer::read_file(int shard, const std::string& shown, const char* name, const Key& key,
                                             CachedImage* out, std::string* why) {
    Fd fd(openat(shard, name, kReadFlags));
    struct stat info;
    if (!fd.ok()) {
        if (errno != ELOOP) return Read::Miss;
        *why = format("read-only cache entry '%s' is a symbolic link; refused, never followed", shown.c_str());
        return Read::Corrupt;
    }
    if (fstat(fd.get(), &info) != 0) return Read::Miss;
    if (!S_ISREG(info.st_mode)) {
        *why = format("read-only cache entry '%s' is %s; refused", shown.c_str(), kind_of(info.st_mode));
        return Read::Corrupt;
    }
    if (uint64_t(info.st_size) > kMaxEntryBytes) {
        *why = format("read-only cache entry '%s' is %lld bytes, more than the %llu an entry may have; refused",
                      shown.c_str(), static_cast<long long>(info.st_size),
                      static_cast<unsigned long long>(kMaxEntryBytes));
        return Read::Corrupt;
    }
    return decode_at(fd.get(), 0, uint64_t(info.st_size), key, "'" + shown + "'", out, why);
}

ReadOnlyLayer::Read ReadOnlyLayer::read_directory(const Key& key, CachedImage* out, std::string* why) {
    std::string shard_text = shard_name(key);
    std::string where = path_ + "/kernels/" + shard_text;
    Fd shard(openat(kernels_.get(), shard_text.c_str(), kReadFlags | O_DIRECTORY));
    if (!shard.ok()) {
        if (errno != ELOOP && errno != ENOTDIR) return Read::Miss;
        *why = format("'%s' in a read-only cache layer is not a directory (a link, a file, a FIFO); refused, never "
                      "followed",
                      where.c_str());
        return Read::Corrupt;
    }
    if (key.nvrtc != kAnyNvrtc) {
        std::string name = entry_file_name(key);
        return read_file(shard.get(), where + "/" + name, name.c_str(), key, out, why);
    }
    Read result = Read::Miss;
    DirListing listing = DirListing::of_descriptor(shard.get());
    size_t seen = 0;
    while (struct dirent* item = listing.ok() ? listing.next() : nullptr) {
        Key found;
        if (!parse_entry_name(shard_text, item->d_name, &found) || found.high != key.high || found.low != key.low)
            continue;
        CachedImage candidate;
        Read read = read_file(shard.get(), where + "/" + item->d_name, item->d_name, found, &candidate, why);
        if (read == Read::Corrupt) result = Read::Corrupt;
        if (read == Read::Hit && (result != Read::Hit || candidate.nvrtc_version > out->nvrtc_version)) {
            *out = std::move(candidate);
            result = Read::Hit;
        }
        if (++seen == kMaxCandidates) break;
    }
    return result;
}

uint64_t ReadOnlyLayer::entries() {
    if (is_bundle_) return index_.size();
    std::vector<ScannedEntry> found;
    scan_entries(kernels_.get(), path_ + "/kernels", /*sweep=*/false, &found);
    return found.size();
}

}  // namespace cache
}  // namespace cuabi
