#include "core/helper_side.hpp"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <vector>

#include "core/child_process.hpp"

namespace cuabi {
namespace {

void close_inherited_descriptors() {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, kChildSocket + 1, ~0u, 0) == 0) return;
#endif
    DIR* listing = opendir("/proc/self/fd");
    if (listing == nullptr) {
        for (int fd = kChildSocket + 1; fd < 1024; ++fd) close(fd);
        return;
    }
    std::vector<int> open_fds;
    while (struct dirent* item = readdir(listing)) {
        int fd = atoi(item->d_name);
        if (fd > kChildSocket && fd != dirfd(listing)) open_fds.push_back(fd);
    }
    closedir(listing);
    for (int fd : open_fds) close(fd);
}

}  // namespace

int begin_helper(int argc, char** argv, pid_t* parent) {
    long given = 0;
    for (int i = 1; i + 1 < argc; i += 2)
        if (strcmp(argv[i], "--parent") == 0) given = atol(argv[i + 1]);
    if (given <= 0) return 2;
    if (getppid() != given) return 3;
    close_inherited_descriptors();
    *parent = static_cast<pid_t>(given);
    return 0;
}

}  // namespace cuabi
