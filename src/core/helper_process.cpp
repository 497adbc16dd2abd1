#include "core/helper_process.hpp"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace cuabi {
namespace {

std::string death_of(int status) {
    if (WIFSIGNALED(status))
        return format("was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return format("exited with status %d", WEXITSTATUS(status));
    return "ended";
}

}  // namespace

std::string helper_executable(const char* name, const char* override_variable, std::string* why) {
    const char* override_path = secure_getenv(override_variable);
    std::string path;
    if (override_path != nullptr && *override_path != '\0') {
        path = override_path;
    } else {
        Dl_info self{};
        char resolved[4096];
        if (dladdr(reinterpret_cast<void*>(&helper_executable), &self) == 0 || self.dli_fname == nullptr ||
            realpath(self.dli_fname, resolved) == nullptr) {
            *why = "the library could not find its own file to look beside it";
            return "";
        }
        std::string library = resolved;
        path = library.substr(0, library.rfind('/')) + "/cuabi/" + name;
    }
    struct stat info;
    if (stat(path.c_str(), &info) != 0) *why = format("'%s' does not exist", path.c_str());
    else if (!S_ISREG(info.st_mode) || (info.st_mode & S_IXUSR) == 0)
        *why = format("'%s' is not an executable file", path.c_str());
    else if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (info.st_uid != 0 && info.st_uid != geteuid()))
        *why = format("'%s' may be changed by another user (mode %03o, owner uid %u)", path.c_str(),
                      static_cast<unsigned>(info.st_mode & 0777), static_cast<unsigned>(info.st_uid));
    else return path;
    return "";
}

bool start_helper(const std::string& path, const std::vector<std::string>& arguments, HelperProcess* out,
                  std::string* why) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *why = format("socketpair: %s", strerror(errno));
        return false;
    }
    if (fds[1] == kHelperSocket) {  // dup2 onto itself would keep close-on-exec
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, kHelperSocket + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    std::string parent = std::to_string(getpid());
    std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>("--parent"),
                               const_cast<char*>(parent.c_str())};
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kHelperSocket);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
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

std::string stop_helper(const HelperProcess& helper, bool kill_now) {
    close(helper.fd);
    int status = 0;
    pid_t got = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        got = waitpid(helper.pid, &status, WNOHANG);
        if (got < 0 && errno == EINTR) continue;
        if (got != 0) break;
        if (kill_now || waited_ms >= 2000) {
            kill(helper.pid, SIGKILL);
            while ((got = waitpid(helper.pid, &status, 0)) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    if (got != helper.pid) return "ended (its exit status is unknown: this process does not keep its children's)";
    return death_of(status);
}

}  // namespace cuabi
