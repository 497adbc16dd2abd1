// Runs a program in a child process with extra environment variables and collects its stdout
// and exit status. Used to test what happens at process start (driver loading is done once per
// process, so each outcome needs a fresh process).
#pragma once

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace test_support {

struct ChildResult {
    int exit_status = -1;  // exit code, or -1 when the child did not exit normally
    std::string output;    // stdout
};

// Runs `argv` (argv[0] is the path) with `overrides` (NAME=value) added to, or replacing in, the
// current environment.
inline ChildResult run_child(const std::vector<std::string>& argv,
                             const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::vector<std::string> environment;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        bool replaced = false;
        for (const auto& override_entry : overrides)
            if (std::strncmp(*entry, (override_entry.first + "=").c_str(), override_entry.first.size() + 1) == 0)
                replaced = true;
        if (!replaced) environment.push_back(*entry);
    }
    for (const auto& override_entry : overrides) environment.push_back(override_entry.first + "=" + override_entry.second);
    std::vector<char*> env_pointers, arg_pointers;
    for (std::string& entry : environment) env_pointers.push_back(&entry[0]);
    env_pointers.push_back(nullptr);
    std::vector<std::string> args = argv;
    for (std::string& arg : args) arg_pointers.push_back(&arg[0]);
    arg_pointers.push_back(nullptr);

    ChildResult result;
    int pipe_fds[2];
    if (pipe(pipe_fds) != 0) return result;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, arg_pointers[0], &actions, nullptr, arg_pointers.data(), env_pointers.data());
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    if (spawned != 0) {
        close(pipe_fds[0]);
        result.output = std::string("posix_spawn failed: ") + std::strerror(spawned);
        return result;
    }
    char chunk[4096];
    ssize_t got;
    while ((got = read(pipe_fds[0], chunk, sizeof chunk)) > 0) result.output.append(chunk, static_cast<size_t>(got));
    close(pipe_fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
    return result;
}

}  // namespace test_support
