#include "compile/helper_process.hpp"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace cuabi {
namespace helper_process {
namespace {

std::string death_of(int status) {
    if (WIFSIGNALED(status))
        return format("was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return format("exited with status %d", WEXITSTATUS(status));
    return "ended";
}

void forget(Child* child) {
    close(child->fd);
    child->pid = -1;
    child->fd = -1;
}

}  // namespace

std::string locate(const char* name, const char* override_variable, std::string* why) {
    const char* override_path = secure_getenv(override_variable);
    std::string path;
    if (override_path != nullptr && *override_path != '\0') {
        path = override_path;
    } else {
        Dl_info self{};
        char resolved[4096];
        if (dladdr(reinterpret_cast<void*>(&locate), &self) == 0 || self.dli_fname == nullptr ||
            realpath(self.dli_fname, resolved) == nullptr) {
            *why = "the library could not find its own file to look beside it";
            return "";
        }
        std::string library = resolved;
        path = library.substr(0, library.rfind('/')) + "/cuabi/" + name;
    }
    struct stat info;
    if (stat(path.c_str(), &info) != 0)
        *why = format("'%s' does not exist", path.c_str());
    else if (!S_ISREG(info.st_mode) || (info.st_mode & S_IXUSR) == 0)
        *why = format("'%s' is not an executable file", path.c_str());
    else if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (info.st_uid != 0 && info.st_uid != geteuid()))
        *why = format("'%s' may be changed by another user (mode %03o, owner uid %u)", path.c_str(),
                      static_cast<unsigned>(info.st_mode & 0777), static_cast<unsigned>(info.st_uid));
    return why->empty() ? path : "";
}

bool spawn(const std::string& path, const std::vector<std::string>& arguments, Child* out, std::string* why) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *why = format("socketpair: %s", strerror(errno));
        return false;
    }
    if (fds[1] == kSocket) {  // dup2 onto itself would keep close-on-exec
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, kSocket + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    std::vector<char*> argv = {const_cast<char*>(path.c_str())};
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kSocket);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);   // the host may block signals (Go does)
    posix_spawnattr_setsigdefault(&attributes, &all);  // and ignore some
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int spawned = posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        *why = format("posix_spawn '%s': %s", path.c_str(), strerror(spawned));
        return false;
    }
    out->pid = pid;
    out->fd = fds[0];
    return true;
}

std::string reap(Child* child, bool kill_now) {
    const pid_t pid = child->pid;
    forget(child);
    int status = 0;
    pid_t got = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        got = waitpid(pid, &status, WNOHANG);
        if (got < 0 && errno == EINTR) continue;
        if (got != 0) break;
        if (kill_now || waited_ms >= 2000) {
            kill(pid, SIGKILL);
            while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    if (got != pid) return "ended (its exit status is unknown: this process does not keep its children's)";
    return death_of(status);
}

bool reap_if_ended(Child* child) {
    if (!child->running()) return false;
    int status = 0;
    pid_t got = waitpid(child->pid, &status, WNOHANG);
    if (got != child->pid && !(got < 0 && errno == ECHILD)) return false;
    forget(child);
    return true;
}

void close_inherited_descriptors() {
#ifdef SYS_close_range
    if (syscall(SYS_close_range, kSocket + 1, ~0u, 0) == 0) return;
#endif
    DIR* listing = opendir("/proc/self/fd");
    if (listing == nullptr) return;
    std::vector<int> open_fds;
    while (struct dirent* item = readdir(listing)) {
        int fd = std::atoi(item->d_name);
        if (fd > kSocket && fd != dirfd(listing)) open_fds.push_back(fd);
    }
    closedir(listing);
    for (int fd : open_fds) close(fd);
}

}  // namespace helper_process
}  // namespace cuabi
