// Export and import of bundles (bundle_format.hpp) between the disk layer and one file.
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <unistd.h>

#include <cstring>
#include <new>

#include "cache/bundle_format.hpp"
#include "cache/disk_scan.hpp"
#include "cache/entry_format.hpp"
#include "cache/file_io.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/readonly_layer.hpp"

namespace cuabi {
namespace cache {
namespace {

bool matches(const char* pattern, const Key& key, const CachedImage& image) {
    if (pattern == nullptr || pattern[0] == '\0') return true;
    return fnmatch(pattern, image.target.c_str(), 0) == 0 || fnmatch(pattern, key.hex().c_str(), 0) == 0;
}

Status fail_problem(const Problem& problem) {
    return fail(problem.status, problem.fix.c_str(), "%s", problem.what.c_str());
}

// Writes head + entries to a temp file beside `path`, then renames it over `path`: a reader of
// `path` sees the old bundle or the whole new one.
Status write_bundle(const std::string& path, const std::vector<uint8_t>& head, const std::vector<BundleEntry>& entries) {
    std::string temp = path + ".tmp" + std::to_string(getpid());
    const char* fix = "name a bundle path in a writable directory with room for it";
    int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return fail(CUABI_ERROR_CACHE_IO, fix, "creating the bundle '%s' failed: %s", temp.c_str(), strerror(errno));
    Fd file(fd);
    bool written = write_all(fd, head.data(), head.size());
    for (size_t i = 0; written && i < entries.size(); ++i)
        written = write_all(fd, entries[i].bytes.data(), entries[i].bytes.size());
    if (!written || fsync(fd) != 0 || rename(temp.c_str(), path.c_str()) != 0) {
        int error = errno;
        unlink(temp.c_str());
        return fail(CUABI_ERROR_CACHE_IO, fix, "writing the bundle '%s' failed: %s", path.c_str(), strerror(error));
    }
    return CUABI_SUCCESS;
}

}  // namespace

Status KernelCache::export_bundle(const std::string& path, const char* match, Transfer* out) {
    *out = Transfer{};
    Status status = check_disk();
    if (status != CUABI_SUCCESS) return status;
    std::vector<ScannedEntry> scanned;
    if (disk_ != nullptr) {
        int kernels = openat(disk_->fd(), "kernels", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (kernels >= 0) {
            Fd owned(kernels);
            Problem problem = scan_entries(kernels, disk_->directory() + "/kernels", /*sweep=*/false, &scanned);
            if (!problem.ok()) return fail_problem(problem);
        }
    }
    std::vector<BundleEntry> entries;
    for (const ScannedEntry& found : scanned) {
        CachedImage image;
        std::string why;
        if (disk_->read(found.key, &image, &why) != DiskStore::Read::Hit || !matches(match, found.key, image)) continue;
        entries.push_back(BundleEntry{found.key, encode_entry(found.key, image)});
    }
    std::vector<uint8_t> head = encode_bundle_head(&entries);
    status = write_bundle(path, head, entries);
    if (status != CUABI_SUCCESS) return status;
    out->entries = entries.size();
    out->bytes = head.size();
    for (const BundleEntry& entry : entries) out->bytes += entry.bytes.size();
    return CUABI_SUCCESS;
}

Status KernelCache::import_bundle(const std::string& path, Transfer* out) {
    *out = Transfer{};
    std::unique_ptr<ReadOnlyLayer> bundle;
    Problem problem = ReadOnlyLayer::open(path, &bundle);
    if (problem.ok() && !bundle->is_bundle()) {
        problem.status = CUABI_ERROR_INVALID_ARGUMENT;
        problem.what = format("'%s' is a directory, not a cache bundle", path.c_str());
        problem.fix = "import a file written by 'cuabi cache export', or use the directory as a read-only layer "
                      "(CUABI_CACHE_READONLY_DIRS)";
    }
    if (!problem.ok()) return fail_problem(problem);
    Status status = check_disk();
    if (status != CUABI_SUCCESS) return status;
    if (disk_ == nullptr)
        return fail(CUABI_ERROR_UNSUPPORTED, "unset CUABI_CACHE_DISABLE to import into the disk cache",
                    "importing '%s' needs the disk cache, which is off: %s", path.c_str(), config_.disabled_reason.c_str());
    std::string first_refusal;
    for (const BundleRecord& record : bundle->index()) {
        CachedImage image;
        std::string why;
        if (bundle->read_record(record, &image, &why) != ReadOnlyLayer::Read::Hit) {
            out->refused += 1;
            if (first_refusal.empty()) first_refusal = why;
            continue;
        }
        StoreReport report;
        problem = disk_->write(record.key, image, &report);  // image.untrusted: the entry says so on disk
        if (!problem.ok()) return fail_problem(problem);
        out->entries += 1;
        out->bytes += record.size;
    }
    if (out->refused == 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_CACHE_IO, "write the bundle again with 'cuabi cache export' and copy it whole",
                "%llu of %zu entries of bundle '%s' are damaged and were not imported (the other %llu were); the "
                "first: %s",
                static_cast<unsigned long long>(out->refused), bundle->index().size(), path.c_str(),
                static_cast<unsigned long long>(out->entries), first_refusal.c_str());
}

}  // namespace cache
}  // namespace cuabi
