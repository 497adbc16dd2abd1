// Real compile workers, as /proc shows them: which are this process's, whether one is blocked
// opening a FIFO (NVRTC reading an #include that never delivers), whether one is gone.
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace worker_test {

inline std::string read_text(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

// State letter and parent from /proc/PID/stat ('\0' when there is no such process).
inline char process_state(pid_t pid, pid_t* parent = nullptr) {
    std::string stat = read_text("/proc/" + std::to_string(pid) + "/stat");
    size_t close = stat.rfind(')');
    if (close == std::string::npos || close + 2 >= stat.size()) return '\0';
    std::istringstream rest(stat.substr(close + 2));
    char state = '\0';
    long ppid = 0;
    rest >> state >> ppid;
    if (parent != nullptr) *parent = static_cast<pid_t>(ppid);
    return state;
}

// Ended: no such process, or a zombie nobody has reaped yet (a container's init may not).
inline bool gone(pid_t pid) {
    char state = process_state(pid);
    return state == '\0' || state == 'Z' || state == 'X';
}

// The compile workers whose parent is `parent`, living ones only.
inline std::vector<pid_t> workers_of(pid_t parent) {
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    if (proc == nullptr) return found;
    while (struct dirent* entry = readdir(proc)) {
        pid_t pid = static_cast<pid_t>(std::atol(entry->d_name));
        if (pid <= 0) continue;
        pid_t ppid = 0;
        char state = process_state(pid, &ppid);
        if (ppid != parent || state == 'Z' || state == '\0') continue;
        if (read_text("/proc/" + std::to_string(pid) + "/comm").rfind("cuabi-compile-w", 0) == 0) found.push_back(pid);
    }
    closedir(proc);
    return found;
}

// Whether a thread of `pid` sleeps opening a FIFO that has no writer.
inline bool opening_a_fifo(pid_t pid) {
    std::string tasks = "/proc/" + std::to_string(pid) + "/task";
    DIR* listing = opendir(tasks.c_str());
    if (listing == nullptr) return false;
    bool waiting = false;
    while (struct dirent* entry = readdir(listing))
        if (entry->d_name[0] != '.' && read_text(tasks + "/" + entry->d_name + "/wchan") == "wait_for_partner")
            waiting = true;
    closedir(listing);
    return waiting;
}

template <typename Condition>
bool wait_until(Condition&& condition, std::chrono::milliseconds limit) {
    auto end = std::chrono::steady_clock::now() + limit;
    while (!condition()) {
        if (std::chrono::steady_clock::now() >= end) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

}  // namespace worker_test
