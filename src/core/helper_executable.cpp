#include "core/helper_executable.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.hpp"

namespace cuabi {

std::string helper_executable(const char* name, const char* override_variable, std::string* why) {
    const char* override_path = secure_getenv(override_variable);
    std::string path;
    char resolved[PATH_MAX];
    if (override_path != nullptr && *override_path != '\0') {
        path = override_path;
    } else {
        Dl_info self{};
        if (dladdr(reinterpret_cast<void*>(&helper_executable), &self) == 0 || self.dli_fname == nullptr ||
            realpath(self.dli_fname, resolved) == nullptr) {
            *why = "the library could not find its own file to look beside it";
            return "";
        }
        std::string library = resolved;
        path = library.substr(0, library.rfind('/')) + "/cuabi/" + name;
    }
    if (realpath(path.c_str(), resolved) == nullptr) {
        *why = errno == ENOENT ? format("'%s' does not exist", path.c_str())
                               : format("'%s' cannot be resolved (%s)", path.c_str(), strerror(errno));
        return "";
    }
    struct stat info;
    if (stat(resolved, &info) != 0)
        *why = format("'%s' does not exist", resolved);
    else if (!S_ISREG(info.st_mode) || (info.st_mode & S_IXUSR) == 0)
        *why = format("'%s' is not an executable file", resolved);
    else if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (info.st_uid != 0 && info.st_uid != geteuid()))
        *why = format("'%s' may be changed by another user (mode %03o, owner uid %u)", resolved,
                      static_cast<unsigned>(info.st_mode & 0777), static_cast<unsigned>(info.st_uid));
    else
        return resolved;
    return "";
}

}  // namespace cuabi
