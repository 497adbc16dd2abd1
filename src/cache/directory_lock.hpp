// The cache directory's lock file, <dir>/lock: an exclusive flock() held around every change to
// the set of entries (publish, eviction, removal), so that many processes can share one
// directory. Readers never take it: entries appear by rename() and so are always whole.
//
// The lock is taken with a deadline: a process that holds it and stops (SIGSTOP, a debugger, a
// hung NFS server) costs the others a bounded wait, after which they go on from memory for that
// operation (timed_out()) and count it in the statistics. Threads of one process queue for their
// turn first (a mutex per directory, waited on without a deadline: they hold the lock only for
// bounded work), and the deadline counts from their turn -- flock() alone would have them time
// out on each other as if on a stopped process.
//
// The file also holds the ledger: the directory's total entry bytes as decimal text, kept up to
// date by every locked change so that a store need not scan the directory to enforce the cap. A
// change first marks the ledger dirty and writes the exact new total when done; a process killed
// in between leaves it dirty, and the next holder rescans instead of trusting it. So at every
// moment a clean ledger equals the bytes on disk.
//
// The lock file is opened relative to the anchored directory, never through a link, and must be
// a regular file of the effective user with one link; anything else in its place is removed and
// replaced, so a planted link cannot make cuabi truncate another file.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>

#include "cache/cache_dir.hpp"

namespace cuabi {
namespace cache {

constexpr uint32_t kDefaultLockTimeoutMs = 2000;  // CUABI_CACHE_LOCK_TIMEOUT_MS (other processes only)

class DirectoryLock {
public:
    // Opens (creating, mode 0600) and locks <directory>/lock, waiting at most `timeout_ms`.
    // `where` names the directory in messages. Check ok() / timed_out() / problem().
    DirectoryLock(int directory, const std::string& where, uint32_t timeout_ms);
    ~DirectoryLock();
    DirectoryLock(const DirectoryLock&) = delete;
    DirectoryLock& operator=(const DirectoryLock&) = delete;

    bool ok() const { return fd_ >= 0; }
    bool timed_out() const { return timed_out_; }
    // CUABI_ERROR_TIMEOUT when timed out, CUABI_ERROR_CACHE_IO otherwise.
    const Problem& problem() const { return problem_; }

    // False when the ledger is missing, unreadable or dirty: scan instead.
    bool read_ledger(uint64_t* bytes) const;
    // Marks the ledger dirty until the next write_ledger(), which writes the exact total.
    void begin_change() const;
    void write_ledger(uint64_t bytes) const;

private:
    bool open_lock_file(int directory, const std::string& path);
    bool still_the_lock_file(int directory) const;

    std::unique_lock<std::mutex> turn_;  // this process's turn at the directory
    int fd_ = -1;
    bool timed_out_ = false;
    Problem problem_;
};

}  // namespace cache
}  // namespace cuabi
