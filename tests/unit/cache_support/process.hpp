// Real files and real processes for the cache tests: a private temporary directory removed
// afterwards, and running the helper program (cache_helper.cpp) with a chosen environment.
#pragma once

#include <fcntl.h>
#include <ftw.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace cache_test {

class TempDir {
public:
    TempDir() {
        char pattern[] = "/tmp/cuabi-cache-test-XXXXXX";
        path_ = mkdtemp(pattern);
    }
    ~TempDir() {
        // Undo what tests did to permissions and owners so that everything can be removed.
        nftw(path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) {
            chmod(p, 0700);
            return 0;
        }, 16, FTW_PHYS);
        nftw(path_.c_str(), [](const char* p, const struct stat*, int, struct FTW*) { return remove(p); }, 16,
             FTW_DEPTH | FTW_PHYS);
    }
    const std::string& path() const { return path_; }
    std::string operator/(const std::string& name) const { return path_ + "/" + name; }

private:
    std::string path_;
};

struct HelperResult {
    int exit_code = -1;  // -1: killed by a signal
    std::string output;
    std::map<std::string, std::string> values;  // "key=value" lines of the output
    uint64_t number(const std::string& key) const {
        auto found = values.find(key);
        return found == values.end() ? UINT64_MAX : std::stoull(found->second);
    }
};

// Starts the helper with `args` and the current environment plus `env` ("NAME=value"; a value
// of "NAME=" with nothing after '=' removes NAME). Does not wait.
inline pid_t start_helper(const std::vector<std::string>& args, const std::vector<std::string>& env, int* out_fd) {
    std::vector<std::string> environment;
    for (char** e = environ; *e != nullptr; ++e) {
        std::string entry = *e, name = entry.substr(0, entry.find('='));
        bool overridden = false;
        for (const std::string& wanted : env) overridden |= wanted.substr(0, wanted.find('=')) == name;
        if (!overridden) environment.push_back(entry);
    }
    for (const std::string& wanted : env)
        if (wanted.back() != '=') environment.push_back(wanted);
    std::vector<std::string> argv_storage = {CUABI_CACHE_TEST_HELPER};
    argv_storage.insert(argv_storage.end(), args.begin(), args.end());
    std::vector<char*> argv, envp;
    for (std::string& a : argv_storage) argv.push_back(&a[0]);
    for (std::string& e : environment) envp.push_back(&e[0]);
    argv.push_back(nullptr);
    envp.push_back(nullptr);

    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) return -1;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
    pid_t pid = -1;
    if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data()) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    *out_fd = pipe_fds[0];
    return pid;
}

inline HelperResult finish_helper(pid_t pid, int fd) {
    HelperResult result;
    char buffer[4096];
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0) result.output.append(buffer, static_cast<size_t>(got));
    close(fd);
    int status = 0;
    if (pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    std::istringstream lines(result.output);
    for (std::string line; std::getline(lines, line);) {
        size_t eq = line.find('=');
        if (eq != std::string::npos) result.values[line.substr(0, eq)] = line.substr(eq + 1);
    }
    return result;
}

inline HelperResult run_helper(const std::vector<std::string>& args, const std::vector<std::string>& env) {
    int fd = -1;
    pid_t pid = start_helper(args, env, &fd);
    return finish_helper(pid, fd);
}

}  // namespace cache_test
