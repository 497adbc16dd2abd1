// Small file helpers shared by the cache's readers.
#pragma once

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>

namespace cuabi {
namespace cache {

// Reads exactly `size` bytes at `offset`; false on an error or a file that ends first.
inline bool pread_all(int fd, uint8_t* data, size_t size, uint64_t offset = 0) {
    size_t done = 0;
    while (done < size) {
        ssize_t got = pread(fd, data + done, size - done, static_cast<off_t>(offset + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return false;
        done += static_cast<size_t>(got);
    }
    return true;
}

// Writes all of `data`; false on an error.
inline bool write_all(int fd, const uint8_t* data, size_t size) {
    size_t done = 0;
    while (done < size) {
        ssize_t put = write(fd, data + done, size - done);
        if (put < 0 && errno == EINTR) continue;
        if (put < 0) return false;
        done += static_cast<size_t>(put);
    }
    return true;
}

// "a FIFO", "a symbolic link", ... for messages about what was found where a file belongs.
inline const char* kind_of(mode_t mode) {
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISLNK(mode)) return "a symbolic link";
    if (S_ISSOCK(mode)) return "a socket";
    if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
    return "not a regular file";
}

}  // namespace cache
}  // namespace cuabi
