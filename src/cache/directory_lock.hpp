// The cache directory's lock file, <dir>/lock: an exclusive flock() held around every change to
// the set of entries (publish, eviction, removal), so that many processes can share one
// directory. Readers never take it: entries appear by rename() and so are always whole.
//
// The file also holds the ledger: the directory's total entry bytes as decimal text, kept up
// to date by every locked change so that a store need not scan the directory to enforce the
// cap. Anything that could make it drift (a crash between rename and ledger update, files
// deleted by hand) makes it too high or is corrected by the next full scan, which rewrites it.
#pragma once

#include <cstdint>
#include <string>

#include "cache/cache_dir.hpp"

namespace cuabi {
namespace cache {

class DirectoryLock {
public:
    // Opens (creating, mode 0600) and locks <directory>/lock; blocks while another process or
    // thread holds it. Check ok() / problem().
    explicit DirectoryLock(const std::string& directory, bool create = true);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

    bool ok() const { return fd_ >= 0; }
    const Problem& problem() const { return problem_; }

    // False when the ledger is missing or unreadable (first use, older layout): scan instead.
    bool read_ledger(uint64_t* bytes) const;
    void write_ledger(uint64_t bytes) const;

private:
    int fd_ = -1;
    Problem problem_;
};

}  // namespace cache
}  // namespace cuabi
