#include "cache/directory_lock.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace cuabi {
namespace cache {

DirectoryLock::DirectoryLock(const std::string& directory, bool create) {
    std::string path = directory + "/lock";
    int fd = open(path.c_str(), O_RDWR | O_CLOEXEC | (create ? O_CREAT : 0), 0600);
    if (fd < 0) {
        problem_ = io_problem("opening the cache lock file", path, errno);
        return;
    }
    while (flock(fd, LOCK_EX) != 0) {
        if (errno == EINTR) continue;
        problem_ = io_problem("locking the cache lock file", path, errno);
        close(fd);
        return;
    }
    fd_ = fd;
}

DirectoryLock::~DirectoryLock() {
    if (fd_ >= 0) close(fd_);  // closing releases the flock
}

bool DirectoryLock::read_ledger(uint64_t* bytes) const {
    char text[32] = {};
    ssize_t got = pread(fd_, text, sizeof text - 1, 0);
    if (got <= 0) return false;
    char* end = nullptr;
    unsigned long long value = std::strtoull(text, &end, 10);
    if (end == text || *end != '\n') return false;
    *bytes = value;
    return true;
}

void DirectoryLock::write_ledger(uint64_t bytes) const {
    char text[32];
    int length = std::snprintf(text, sizeof text, "%llu\n", static_cast<unsigned long long>(bytes));
    // Best effort: a ledger that failed to update is rebuilt by the next scan.
    if (pwrite(fd_, text, static_cast<size_t>(length), 0) == length) {
        if (ftruncate(fd_, length) != 0) return;
    }
}

}  // namespace cache
}  // namespace cuabi
