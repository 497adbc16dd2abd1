// Where the cache lives and whether it may be trusted.
//
// Loading a cached binary runs it on the GPU, so a cache directory that someone else can write
// is a code-injection path: the directory must be owned by the effective user and not writable
// by group or others. cuabi creates it (and missing parents) with mode 0700.
#pragma once

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
// else $HOME/.cache/cuabi. Empty (and *why set) when none of them is set.
std::string resolve_cache_directory(std::string* why);

// Creates `directory` with mode 0700 (parents too) unless it exists, then checks that it is a
// directory, owned by the effective uid, and not writable by group or others.
// CUABI_ERROR_CACHE_UNSAFE for a foreign or shared directory, CUABI_ERROR_CACHE_IO when it
// cannot be created or examined.
Problem prepare_directory(const std::string& directory);

// mkdir with mode 0700; success when it already exists as a directory.
Problem make_private_directory(const std::string& path);

}  // namespace cache
}  // namespace cuabi
