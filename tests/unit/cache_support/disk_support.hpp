// Looking at a cache directory from a test: its entries (as a scan sees them), the path of an
// entry, a store opened on it -- each through the same code the cache uses.
#pragma once

#include <fcntl.h>

#include <memory>
#include <string>
#include <vector>

#include "cache/disk_scan.hpp"
#include "cache/disk_store.hpp"

namespace cache_test {

// Every entry under <directory>/kernels, without removing anything.
inline std::vector<cuabi::cache::ScannedEntry> scan(const std::string& directory) {
    std::vector<cuabi::cache::ScannedEntry> found;
    cuabi::cache::Fd kernels(open((directory + "/kernels").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (kernels.ok()) cuabi::cache::scan_entries(kernels.get(), directory + "/kernels", false, &found);
    return found;
}

inline std::string entry_path(const std::string& directory, const cuabi::cache::Key& key) {
    return directory + "/" + cuabi::cache::DiskStore::entry_path(key);
}

inline std::unique_ptr<cuabi::cache::DiskStore> open_store(const std::string& directory, uint64_t max_bytes,
                                                           uint32_t lock_timeout_ms = 2000) {
    std::unique_ptr<cuabi::cache::DiskStore> store;
    cuabi::cache::DiskStore::open(directory, max_bytes, lock_timeout_ms, &store);
    return store;
}

}  // namespace cache_test
