// Runs code in a fork() child and collects what it reports, for the tests of life after fork().
#pragma once

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace test_support {

// Runs `child` in a fork() child, which reports through a pipe; returns its report, or a line
// saying it hung (killed after `limit`) or died.
template <typename Child>
inline std::string in_forked_child(Child&& child, std::chrono::seconds limit = std::chrono::seconds(20)) {
    int fds[2];
    if (pipe(fds) != 0) return "pipe failed";
    const pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        const std::string report = child();
        ssize_t written = write(fds[1], report.data(), report.size());
        _exit(written == static_cast<ssize_t>(report.size()) ? 0 : 1);
    }
    close(fds[1]);
    std::string report;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    for (;;) {
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
        pollfd readable{fds[0], POLLIN, 0};
        if (left.count() <= 0 || poll(&readable, 1, static_cast<int>(left.count())) <= 0) {
            kill(pid, SIGKILL);
            report += "\n(the child hung: killed)";
            break;
        }
        char chunk[4096];
        const ssize_t got = read(fds[0], chunk, sizeof chunk);
        if (got <= 0) break;
        report.append(chunk, static_cast<size_t>(got));
    }
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) report += "\n(the child did not exit cleanly)";
    return report;
}

}  // namespace test_support
