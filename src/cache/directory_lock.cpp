#include "cache/directory_lock.hpp"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

namespace cuabi {
namespace cache {
namespace {

constexpr char kDirty[] = "dirty\n";

int64_t now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

void sleep_ms(int64_t ms) {
    struct timespec pause = {static_cast<time_t>(ms / 1000), static_cast<long>(ms % 1000) * 1000000};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR) {
    }
}

// One mutex per cache directory (by device and inode) for this process's threads. Never freed:
// a process uses a handful of directories.
std::mutex& turn_for(int directory) {
    static std::mutex* table_mutex = new std::mutex();
    static auto* table = new std::map<std::pair<dev_t, ino_t>, std::mutex>();
    struct stat info {};
    if (fstat(directory, &info) != 0) info = {};  // one shared turn for whatever cannot be told apart
    std::lock_guard<std::mutex> lock(*table_mutex);
    return (*table)[{info.st_dev, info.st_ino}];
}

bool is_lock_file(const struct stat& info) {
    return S_ISREG(info.st_mode) && info.st_uid == geteuid() && info.st_nlink == 1;
}

}  // namespace

bool DirectoryLock::open_lock_file(int directory, const std::string& path) {
    for (int attempt = 0; attempt < 3; ++attempt) {
        int fd = openat(directory, "lock", O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
        struct stat info;
        if (fd >= 0 && fstat(fd, &info) == 0 && is_lock_file(info)) {
            fd_ = fd;
            return true;
        }
        int error_number = errno;
        if (fd >= 0) close(fd);
        bool in_the_way = fd >= 0 || error_number == ELOOP || error_number == EISDIR || error_number == ENXIO;
        if (!in_the_way) {
            problem_ = io_problem("opening the cache lock file", path, error_number);
            return false;
        }
        // A link, a directory, a FIFO, a foreign or hard-linked file: never used, replaced.
        if (!remove_tree_at(directory, "lock")) {
            problem_ = io_problem("removing what is in the way of the cache lock file", path, errno);
            return false;
        }
    }
    problem_ = io_problem("creating the cache lock file", path, EAGAIN);
    return false;
}

bool DirectoryLock::still_the_lock_file(int directory) const {
    struct stat held, named;
    return fstat(fd_, &held) == 0 && fstatat(directory, "lock", &named, AT_SYMLINK_NOFOLLOW) == 0 &&
           held.st_dev == named.st_dev && held.st_ino == named.st_ino;
}

DirectoryLock::DirectoryLock(int directory, const std::string& where, uint32_t timeout_ms)
    : turn_(turn_for(directory)) {
    std::string path = where + "/lock";
    int64_t deadline = now_ms() + timeout_ms;
    int64_t pause = 1;
    if (!open_lock_file(directory, path)) {
        turn_.unlock();
        return;
    }
    for (;;) {
        if (flock(fd_, LOCK_EX | LOCK_NB) == 0) {
            if (still_the_lock_file(directory)) return;
            // Replaced between our open and our lock (a planted file was removed meanwhile):
            // the lock that counts is the one on the file now named "lock".
            close(fd_);
            fd_ = -1;
            if (!open_lock_file(directory, path)) {
                turn_.unlock();
                return;
            }
        } else if (errno != EWOULDBLOCK && errno != EINTR) {
            problem_ = io_problem("locking the cache lock file", path, errno);
            break;
        }
        int64_t left = deadline - now_ms();
        if (left <= 0) {
            timed_out_ = true;
            problem_.status = CUABI_ERROR_TIMEOUT;
            problem_.what = format("the cache lock '%s' stayed held by another process or thread for %u ms "
                                   "(CUABI_CACHE_LOCK_TIMEOUT_MS)",
                                   path.c_str(), timeout_ms);
            problem_.fix = "find the process holding it (fuser " + path +
                           ") and let it finish, or raise CUABI_CACHE_LOCK_TIMEOUT_MS";
            break;
        }
        sleep_ms(std::min(pause, left));
        pause = std::min<int64_t>(pause * 2, 50);
    }
    close(fd_);
    fd_ = -1;
    turn_.unlock();
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
    if (end == text || *end != '\n' || text[0] == '-') return false;
    *bytes = value;
    return true;
}

void DirectoryLock::begin_change() const {
    // Best effort, like the ledger itself: a dirty mark that cannot be written leaves the old
    // total, which the change then overwrites.
    if (pwrite(fd_, kDirty, sizeof kDirty - 1, 0) == static_cast<ssize_t>(sizeof kDirty - 1)) {
        if (ftruncate(fd_, sizeof kDirty - 1) != 0) return;
    }
}

void DirectoryLock::write_ledger(uint64_t bytes) const {
    char text[32];
    int length = std::snprintf(text, sizeof text, "%llu\n", static_cast<unsigned long long>(bytes));
    if (pwrite(fd_, text, static_cast<size_t>(length), 0) == length) {
        if (ftruncate(fd_, length) != 0) return;
    }
}

}  // namespace cache
}  // namespace cuabi
