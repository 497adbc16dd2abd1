#include "cache/cache_dir.hpp"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace cuabi {
namespace cache {
namespace {

std::string env(const char* name) {
    const char* value = std::getenv(name);
    return value != nullptr ? value : "";
}

std::string absolute(const std::string& path) {
    if (path.empty() || path[0] == '/') return path;
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) == nullptr) return path;
    return std::string(cwd) + "/" + path;
}

}  // namespace

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

Problem make_private_directory(const std::string& path) {
    if (mkdir(path.c_str(), 0700) == 0) return Problem{};
    int error_number = errno;
    struct stat info;
    if (error_number == EEXIST && stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode)) return Problem{};
    return io_problem("creating the cache directory", path, error_number);
}

Problem prepare_directory(const std::string& directory) {
    // mkdir -p, every level 0700; existing levels are left as they are.
    for (size_t slash = directory.find('/', 1); slash != std::string::npos; slash = directory.find('/', slash + 1)) {
        struct stat info;
        std::string parent = directory.substr(0, slash);
        if (stat(parent.c_str(), &info) == 0) continue;
        Problem problem = make_private_directory(parent);
        if (!problem.ok()) return problem;
    }
    Problem created = make_private_directory(directory);
    if (!created.ok()) return created;

    struct stat info;
    if (stat(directory.c_str(), &info) != 0) return io_problem("examining the cache directory", directory, errno);
    Problem refused;
    refused.status = CUABI_ERROR_CACHE_UNSAFE;
    if (info.st_uid != geteuid()) {
        refused.what = format("the cache directory '%s' is owned by uid %u, not by this process's uid %u; loading "
                              "binaries another user can write would run their code on the GPU",
                              directory.c_str(), static_cast<unsigned>(info.st_uid), static_cast<unsigned>(geteuid()));
        refused.fix = "point CUABI_CACHE_DIR at a directory you own (cuabi creates it with mode 0700)";
        return refused;
    }
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        refused.what = format("the cache directory '%s' has mode %03o: group or others can write it, so cached "
                              "binaries could be replaced by another user",
                              directory.c_str(), static_cast<unsigned>(info.st_mode & 0777));
        refused.fix = format("run 'chmod 700 %s', or point CUABI_CACHE_DIR at a private directory", directory.c_str());
        return refused;
    }
    return Problem{};
}

}  // namespace cache
}  // namespace cuabi
