#include "cache/cache_dir.hpp"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "core/dir_listing.hpp"

namespace cuabi {
namespace cache {
namespace {

// Deep enough for anything cuabi creates (kernels/ab/entry); a deeper tree is not ours.
constexpr int kMaxRemoveDepth = 8;

std::string env(const char* name) {
    const char* value = secure_getenv(name);
    return value != nullptr ? value : "";
}

std::string absolute(const std::string& path) {
    if (path.empty() || path[0] == '/') return path;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == nullptr) return path;
    return std::string(cwd) + "/" + path;
}

Problem unsafe(std::string what, std::string fix) {
    Problem problem;
    problem.status = CUABI_ERROR_CACHE_UNSAFE;
    problem.what = std::move(what);
    problem.fix = std::move(fix);
    return problem;
}

// mkdir -p, every new level 0700; existing levels are left as they are (and checked later).
Problem make_missing_levels(const std::string& directory) {
    for (size_t slash = directory.find('/', 1);; slash = directory.find('/', slash + 1)) {
        std::string level = directory.substr(0, slash);
        if (!level.empty() && mkdir(level.c_str(), 0700) != 0 && errno != EEXIST)
            return io_problem("creating the cache directory", level, errno);
        if (slash == std::string::npos) return Problem{};
    }
}

}  // namespace

Fd::~Fd() {
    if (fd_ >= 0) close(fd_);
}

Fd& Fd::operator=(Fd&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) close(fd_);
        fd_ = other.release();
    }
    return *this;
}

Problem io_problem(const std::string& action, const std::string& path, int error_number) {
    Problem problem;
    problem.status = CUABI_ERROR_CACHE_IO;
    problem.what = format("%s '%s' failed: %s", action.c_str(), path.c_str(), std::strerror(error_number));
    if (error_number == ENOSPC || error_number == EDQUOT || error_number == EFBIG)
        problem.fix = "free disk space, lower CUABI_CACHE_MAX_BYTES, or point CUABI_CACHE_DIR at another disk";
    else
        problem.fix = "make the cache directory writable, point CUABI_CACHE_DIR at a writable directory, or set "
                      "CUABI_CACHE_DISABLE=1 to keep the cache in memory only";
    return problem;
}

std::string resolve_cache_directory(std::string* why) {
    std::string dir = env("CUABI_CACHE_DIR");
    if (!dir.empty()) return absolute(dir);
    std::string xdg = env("XDG_CACHE_HOME");
    if (!xdg.empty() && xdg[0] == '/') return xdg + "/cuabi";  // XDG: relative values are ignored
    std::string home = env("HOME");
    if (!home.empty()) return absolute(home) + "/.cache/cuabi";
    *why = "no cache location: CUABI_CACHE_DIR, XDG_CACHE_HOME and HOME are all unset. Fix: set CUABI_CACHE_DIR "
           "to a private directory";
    return "";
}

Problem check_parent(const struct stat& info, const std::string& path, uid_t euid) {
    if (info.st_uid != 0 && info.st_uid != euid)
        return unsafe(format("the directory '%s' above the cache directory is owned by uid %u, neither root nor this "
                             "process's uid %u, so that user could replace the cache directory with their own",
                             path.c_str(), static_cast<unsigned>(info.st_uid), static_cast<unsigned>(euid)),
                      "point CUABI_CACHE_DIR at a directory whose every parent belongs to you or root");
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 && (info.st_mode & S_ISVTX) == 0)
        return unsafe(format("the directory '%s' above the cache directory has mode %03o: group or others can "
                             "write it without the sticky bit, so they could replace the cache directory",
                             path.c_str(), static_cast<unsigned>(info.st_mode & 0777)),
                      format("run 'chmod o-w,g-w %s' (or 'chmod +t' for a shared directory), or point CUABI_CACHE_DIR "
                             "elsewhere",
                             path.c_str()));
    return Problem{};
}

Problem check_private(const struct stat& info, const std::string& path, uid_t euid) {
    if (!S_ISDIR(info.st_mode))
        return unsafe(format("the cache directory '%s' is not a directory", path.c_str()),
                      "point CUABI_CACHE_DIR at a directory");
    if (info.st_uid != euid)
        return unsafe(format("the cache directory '%s' is owned by uid %u, not by this process's uid %u; loading "
                             "binaries another user can write would run their code on the GPU",
                             path.c_str(), static_cast<unsigned>(info.st_uid), static_cast<unsigned>(euid)),
                      "point CUABI_CACHE_DIR at a directory you own (cuabi creates it with mode 0700)");
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return unsafe(format("the cache directory '%s' has mode %03o: group or others can write it, so cached "
                             "binaries could be replaced by another user",
                             path.c_str(), static_cast<unsigned>(info.st_mode & 0777)),
                      format("run 'chmod 700 %s', or point CUABI_CACHE_DIR at a private directory", path.c_str()));
    return Problem{};
}

namespace {

// Walks `path` (absolute, no "." or ".." components) from the root one descriptor at a time:
// each level is opened relative to the one checked before it and never through a link, so what
// is checked is what is used even if someone renames things meanwhile.
Problem walk(const std::string& path, const std::string& shown, Fd* out) {
    uid_t euid = geteuid();
    Fd current(open("/", O_PATH | O_DIRECTORY | O_CLOEXEC));
    if (!current.ok()) return io_problem("opening", "/", errno);
    std::string walked;
    const char* rest = path.c_str() + 1;
    for (;;) {
        const char* slash = std::strchr(rest, '/');
        std::string name = slash != nullptr ? std::string(rest, static_cast<size_t>(slash - rest)) : rest;
        struct stat info;
        if (fstat(current.get(), &info) != 0) return io_problem("examining", walked.empty() ? "/" : walked, errno);
        Problem problem = check_parent(info, walked.empty() ? "/" : walked, euid);
        if (!problem.ok()) return problem;
        bool last = slash == nullptr;
        walked += "/" + name;
        Fd next(openat(current.get(), name.c_str(), (last ? O_RDONLY : O_PATH) | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.ok()) {
            if (errno == ELOOP || errno == ENOTDIR)
                return unsafe(format("'%s' changed into a link or a file while the cache directory was being opened",
                                     walked.c_str()),
                              "make sure nobody else can change the directories above the cache directory");
            return io_problem("opening the cache directory", walked, errno);
        }
        current = std::move(next);
        if (last) break;
        rest = slash + 1;
    }
    struct stat info;
    if (fstat(current.get(), &info) != 0) return io_problem("examining the cache directory", shown, errno);
    Problem problem = check_private(info, shown, euid);
    if (problem.ok()) *out = std::move(current);
    return problem;
}

// A path without empty, "." or ".." components, which the walk can take as it is.
bool plain_path(const std::string& path) {
    if (path.size() < 2 || path[0] != '/' || path.back() == '/') return false;
    for (size_t start = 1; start <= path.size();) {
        size_t end = path.find('/', start);
        if (end == std::string::npos) end = path.size();
        std::string part = path.substr(start, end - start);
        if (part.empty() || part == "." || part == "..") return false;
        start = end + 1;
    }
    return true;
}

}  // namespace

Problem open_cache_directory(const std::string& directory, Fd* out) {
    if (directory.empty() || directory[0] != '/')
        return io_problem("opening the cache directory", directory, EINVAL);
    // The common case, an existing private directory reached without links, costs one walk. Any
    // other case takes the full way below, so the fast walk decides nothing the full way would
    // decide differently: a plain path that walks cleanly is its own resolved path.
    if (plain_path(directory) && walk(directory, directory, out).ok()) return Problem{};
    Problem problem = make_missing_levels(directory);
    if (!problem.ok()) return problem;
    char resolved[PATH_MAX];
    if (realpath(directory.c_str(), resolved) == nullptr)
        return io_problem("resolving the cache directory", directory, errno);
    if (std::strcmp(resolved, "/") == 0)
        return unsafe("the cache directory is the root directory", "point CUABI_CACHE_DIR at a private directory");
    return walk(resolved, directory, out);
}

bool remove_tree_at(int parent, const char* name) {
    struct Walker {
        static bool remove(int at, const char* entry, int depth) {
            struct stat info;
            if (fstatat(at, entry, &info, AT_SYMLINK_NOFOLLOW) != 0) return errno == ENOENT;
            if (!S_ISDIR(info.st_mode)) return unlinkat(at, entry, 0) == 0 || errno == ENOENT;
            if (depth >= kMaxRemoveDepth) return false;
            Fd directory(openat(at, entry, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
            if (!directory.ok()) return false;
            DirListing listing = DirListing::of_descriptor(directory.get());
            if (!listing.ok()) return false;
            bool all = true;
            while (struct dirent* item = listing.next()) {
                if (std::strcmp(item->d_name, ".") == 0 || std::strcmp(item->d_name, "..") == 0) continue;
                all = remove(directory.get(), item->d_name, depth + 1) && all;
            }
            return all && (unlinkat(at, entry, AT_REMOVEDIR) == 0 || errno == ENOENT);
        }
    };
    return Walker::remove(parent, name, 0);
}

Problem open_subdirectory(int parent, const char* name, bool create, const std::string& where, Fd* out,
                          int* out_errno) {
    std::string path = where + "/" + name;
    for (int attempt = 0; attempt < 3; ++attempt) {
        Fd fd(openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
        int error_number = errno;
        if (fd.ok()) {
            struct stat info;
            if (fstat(fd.get(), &info) != 0) return io_problem("examining", path, errno);
            Problem problem = check_private(info, path, geteuid());
            if (problem.ok()) {
                *out = std::move(fd);
                return problem;
            }
            if (!create) return problem;
            error_number = ENOTDIR;  // not private: replace it below
        }
        if (out_errno != nullptr) *out_errno = error_number;
        if (!create) return io_problem("opening", path, error_number);
        if (error_number == ENOENT) {
            if (mkdirat(parent, name, 0700) != 0 && errno != EEXIST) return io_problem("creating", path, errno);
            continue;
        }
        if (error_number != ENOTDIR && error_number != ELOOP) return io_problem("opening", path, error_number);
        // A link, a file, a FIFO or a foreign directory where a cache directory belongs: never
        // followed, never read; removed and made again.
        if (!remove_tree_at(parent, name)) return io_problem("removing what is in the way at", path, errno);
    }
    return io_problem("creating", path, EAGAIN);
}

}  // namespace cache
}  // namespace cuabi
