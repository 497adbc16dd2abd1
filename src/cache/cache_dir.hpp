// Where the cache lives and whether it may be trusted.
//
// Loading a cached binary runs it on the GPU, so the cache directory is trusted by descriptor,
// never by path: open_cache_directory() opens it once, without following a link in its last
// component, after checking every directory above it, and checks the open descriptor itself
// (owned by the effective user, not writable by group or others). Every later operation is
// relative to that descriptor (openat, renameat, unlinkat, fstatat without following links), so
// a directory swapped in at the same path later is never seen. The parent-chain policy follows
// OpenSSH's StrictModes: each directory above must belong to root or to the effective user and
// must not be writable by group or others -- unless it has the sticky bit (as /tmp does), which
// keeps others from renaming or removing what is not theirs.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace cuabi {
namespace cache {

// A failure of the disk layer, kept as data: the kernel cache turns it into a degradation
// reason during a compile, and the cache API turns it into fail(status, fix, what).
struct Problem {
    Status status = CUABI_SUCCESS;
    std::string what;
    std::string fix;
    bool ok() const { return status == CUABI_SUCCESS; }
    std::string message() const { return what + ". Fix: " + fix; }  // the shape fail() gives
};

Problem io_problem(const std::string& action, const std::string& path, int error_number);

// CUABI_CACHE_DIR (made absolute against the working directory), else $XDG_CACHE_HOME/cuabi,
// else $HOME/.cache/cuabi; read with secure_getenv, so a set-uid program ignores them. Empty
// (and *why set) when none of them is set.
std::string resolve_cache_directory(std::string* why);

// An owned file descriptor, closed on destruction.
class Fd {
public:
    Fd() = default;
    explicit Fd(int fd) : fd_(fd) {}
    ~Fd();
    Fd(Fd&& other) noexcept : fd_(other.release()) {}
    Fd& operator=(Fd&& other) noexcept;
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    int get() const { return fd_; }
    bool ok() const { return fd_ >= 0; }
    int release() {
        int fd = fd_;
        fd_ = -1;
        return fd;
    }

private:
    int fd_ = -1;
};

// Creates `directory` (and missing parents) with mode 0700 unless it exists, checks the chain of
// directories above it and the directory itself (see the file comment), and returns it open in
// *out. CUABI_ERROR_CACHE_UNSAFE for a foreign, shared or link-reached directory,
// CUABI_ERROR_CACHE_IO when it cannot be created or examined.
Problem open_cache_directory(const std::string& directory, Fd* out);

// The policy, as pure functions of a directory's stat (tested on their own):
// a parent may belong to root or `euid` and be writable by others only with the sticky bit;
// the cache directory itself must belong to `euid` and not be writable by group or others.
Problem check_parent(const struct stat& info, const std::string& path, uid_t euid);
Problem check_private(const struct stat& info, const std::string& path, uid_t euid);

// Opens the subdirectory `name` of `parent` without following a link. With `create`, a missing
// one is made (0700) and anything else in its place -- a link, a file, a FIFO, a directory that
// is not private -- is removed and replaced. Without `create`, those give a Problem (and a
// missing one ENOENT in *out_errno). `where` names the parent in messages.
Problem open_subdirectory(int parent, const char* name, bool create, const std::string& where, Fd* out,
                          int* out_errno = nullptr);

// Removes `name` in `parent` whatever it is, a directory with everything below it included,
// never following a link out of the tree. Returns false when something could not be removed.
bool remove_tree_at(int parent, const char* name);

}  // namespace cache
}  // namespace cuabi
