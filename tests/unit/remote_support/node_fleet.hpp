// Node processes (remote_node.cpp) started together, each with its own cache directory, and their
// "key=value" reports.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

extern char** environ;

namespace test_support {

#ifdef CUABI_REMOTE_NODE
constexpr const char* kRemoteNode = CUABI_REMOTE_NODE;
#else
constexpr const char* kRemoteNode = nullptr;
#endif

using Report = std::map<std::string, std::string>;

inline Report parse_report(const std::string& output) {
    Report report;
    size_t at = 0;
    while (at < output.size()) {
        size_t end = output.find('\n', at);
        if (end == std::string::npos) end = output.size();
        std::string line = output.substr(at, end - at);
        size_t equals = line.find('=');
        if (equals != std::string::npos) report[line.substr(0, equals)] = line.substr(equals + 1);
        at = end + 1;
    }
    return report;
}

inline long long number(const Report& report, const std::string& name) {
    auto found = report.find(name);
    return found == report.end() ? -1 : std::atoll(found->second.c_str());
}

class Node {
public:
    // Starts the node program with `arguments`, the current environment plus `overrides`.
    Node(const std::vector<std::string>& arguments, const std::vector<std::pair<std::string, std::string>>& overrides) {
        std::vector<std::string> environment;
        for (char** entry = environ; *entry != nullptr; ++entry) {
            std::string text = *entry;
            bool replaced = false;
            for (const auto& item : overrides) replaced |= text.compare(0, item.first.size() + 1, item.first + "=") == 0;
            if (!replaced) environment.push_back(text);
        }
        for (const auto& item : overrides) environment.push_back(item.first + "=" + item.second);
        std::vector<std::string> args = {kRemoteNode};
        args.insert(args.end(), arguments.begin(), arguments.end());
        std::vector<char*> argv, envp;
        for (std::string& arg : args) argv.push_back(&arg[0]);
        argv.push_back(nullptr);
        for (std::string& entry : environment) envp.push_back(&entry[0]);
        envp.push_back(nullptr);
        int fds[2];
        if (pipe2(fds, O_CLOEXEC) != 0) return;
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
        if (posix_spawn(&pid_, kRemoteNode, &actions, nullptr, argv.data(), envp.data()) != 0) pid_ = -1;
        posix_spawn_file_actions_destroy(&actions);
        close(fds[1]);
        out_ = fds[0];
    }
    ~Node() { finish(); }

    // Waits for the node and returns its report ("exit" is its exit status, -1 when killed).
    Report finish() {
        if (out_ >= 0) {
            char chunk[4096];
            ssize_t got;
            while ((got = read(out_, chunk, sizeof chunk)) > 0) output_.append(chunk, static_cast<size_t>(got));
            close(out_);
            out_ = -1;
        }
        if (pid_ > 0) {
            int status = 0;
            waitpid(pid_, &status, 0);
            exit_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            pid_ = -1;
        }
        Report report = parse_report(output_);
        report["exit"] = std::to_string(exit_);
        return report;
    }

private:
    pid_t pid_ = -1;
    int out_ = -1;
    int exit_ = -1;
    std::string output_;
};

}  // namespace test_support
