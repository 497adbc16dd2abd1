#include "core/child_process.hpp"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/error.hpp"

extern char** environ;

namespace cuabi {

bool spawn_child(const std::string& path, const std::vector<std::string>& arguments, ChildProcess* out,
                 std::string* why) {
    const std::string parent = std::to_string(getpid());
    std::vector<char*> argv = {const_cast<char*>(path.c_str())};
    for (const std::string& argument : arguments) argv.push_back(const_cast<char*>(argument.c_str()));
    argv.push_back(const_cast<char*>("--parent"));
    argv.push_back(const_cast<char*>(parent.c_str()));
    argv.push_back(nullptr);
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) {
        *why = format("socketpair: %s", strerror(errno));
        return false;
    }
    if (fds[1] == kChildSocket) {  // dup2 onto itself would keep close-on-exec
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, kChildSocket + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kChildSocket);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &all);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int spawned = fds[1] < 0 ? errno : posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    if (fds[1] >= 0) close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        *why = format("posix_spawn '%s': %s", path.c_str(), strerror(spawned));
        return false;
    }
    out->pid = pid;
    out->fd = fds[0];
    return true;
}

ChildEnding end_child(ChildProcess* child, bool kill_now, int grace_ms) noexcept {
    ChildEnding ending;
    if (child->fd >= 0) close(child->fd);
    child->fd = -1;
    if (child->pid <= 0) return ending;
    pid_t got = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        got = waitpid(child->pid, &ending.status, WNOHANG);
        if (got < 0 && errno == EINTR) continue;
        if (got != 0) break;
        if (kill_now || waited_ms >= grace_ms) {
            kill(child->pid, SIGKILL);
            while ((got = waitpid(child->pid, &ending.status, 0)) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    ending.known = got == child->pid;
    child->pid = -1;
    return ending;
}

std::string describe(const ChildEnding& ending) {
    if (!ending.known) return "ended (its exit status is unknown: this process does not keep its children's)";
    if (WIFSIGNALED(ending.status))
        return format("was killed by signal %d (%s)", WTERMSIG(ending.status), strsignal(WTERMSIG(ending.status)));
    if (WIFEXITED(ending.status)) return format("exited with status %d", WEXITSTATUS(ending.status));
    return "ended";
}

namespace {

// The state letter of /proc/PID/stat ('\0' when unreadable). A helper with threads (the
// watchdog) becomes waitable, and tells its parent it stopped, only once its last thread has
// exited or stopped; its main thread shows it first.
char process_state(pid_t pid) noexcept {
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return '\0';
    ssize_t got = read(fd, text, sizeof text - 1);
    close(fd);
    if (got <= 0) return '\0';
    text[got] = '\0';
    const char* close_paren = strrchr(text, ')');
    return close_paren != nullptr && close_paren[1] == ' ' ? close_paren[2] : '\0';
}

}  // namespace

ChildHealth check_idle_child(ChildProcess* child, ChildEnding* ending) noexcept {
    if (!child->running()) return ChildHealth::Gone;
    int status = 0;
    pid_t got;
    while ((got = waitpid(child->pid, &status, WNOHANG | WUNTRACED)) < 0 && errno == EINTR) {
    }
    if (got < 0 && errno == ECHILD) {  // reaped for this process (SIGCHLD ignored): how is unknown
        child->pid = -1;
        return ChildHealth::Gone;
    }
    if (got == child->pid) {
        if (WIFSTOPPED(status)) return ChildHealth::Stopped;
        ending->known = true;
        ending->status = status;
        child->pid = -1;  // reaped: its pid is no longer ours to signal
        return ChildHealth::Gone;
    }
    const char state = process_state(child->pid);
    if (state == 'T' || state == 't') return ChildHealth::Stopped;
    if (state == 'Z' || state == 'X') return ChildHealth::Gone;  // dying: end_child() reaps it
    // An idle helper has nothing to say: a readable socket means end of file or garbage.
    struct pollfd connection = {child->fd, POLLIN, 0};
    if (poll(&connection, 1, 0) > 0) return ChildHealth::Gone;
    return ChildHealth::Ready;
}

}  // namespace cuabi
