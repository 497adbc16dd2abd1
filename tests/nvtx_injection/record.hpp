// Test support: run a scenario in a child process with the NVTX recorder injected, and read back
// what it recorded. A child is needed because NVTX looks for its tool once, at the first NVTX call
// of a process, so NVTX_INJECTION64_PATH must be in the environment before the process starts.
//
// Record format (one line per NVTX call, written by nvtx_recorder.cpp):
//   thread \t event \t domain \t message \t category \t message-type \t range-id
// with event one of domain_create, domain_destroy, register_string, name_category, push, pop,
// start, end, mark; tabs, newlines and backslashes in strings escaped as \t \n \\.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern char** environ;

namespace nvtx_record {

struct Event {
    long thread = 0;
    std::string event, domain, message;
    uint32_t category = 0;
    std::string message_type;
    uint64_t range_id = 0;
};

inline std::string unescaped(const std::string& text) {
    std::string out;
    for (size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size()) {
            char next = text[++i];
            out += next == 't' ? '\t' : next == 'n' ? '\n' : next;
        } else {
            out += text[i];
        }
    }
    return out;
}

inline std::vector<Event> read_events(const std::string& path) {
    std::vector<Event> events;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        std::vector<std::string> fields;
        std::stringstream split(line);
        std::string field;
        while (std::getline(split, field, '\t')) fields.push_back(field);
        if (fields.size() != 7) continue;
        Event e;
        e.thread = std::stol(fields[0]);
        e.event = fields[1];
        e.domain = unescaped(fields[2]);
        e.message = unescaped(fields[3]);
        e.category = static_cast<uint32_t>(std::stoul(fields[4]));
        e.message_type = fields[5];
        e.range_id = std::stoull(fields[6]);
        events.push_back(e);
    }
    return events;
}

// A fresh directory (e.g. a CUABI_CACHE_DIR for the child), removed with everything in it.
class TempDir {
public:
    TempDir() {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuabi-range-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (mkdtemp(name.data()) != nullptr) path_ = name.data();
    }
    ~TempDir() {
        std::error_code ignored;
        if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

struct Child {
    int exit_code = -1;
    std::string output;  // the child's stdout and stderr
    std::vector<Event> events;
};

inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Runs `program scenario` with the recorder injected (unless `inject` is false) and `extra_env`
// ("NAME=value") added to this process's environment.
inline Child run(const std::string& program, const std::string& recorder, const std::string& scenario,
                 const std::vector<std::string>& extra_env, bool inject = true) {
    const char* tmp = std::getenv("TMPDIR");
    std::string base = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuabi-nvtx-XXXXXX";
    std::vector<char> dir(base.begin(), base.end());
    dir.push_back('\0');
    Child child;
    if (mkdtemp(dir.data()) == nullptr) {
        child.output = "mkdtemp failed";
        return child;
    }
    std::string record_path = std::string(dir.data()) + "/record.tsv";
    std::string output_path = std::string(dir.data()) + "/output.txt";

    // Variables the child gets from us replace the inherited ones (getenv returns the first match).
    auto overridden = [&](const std::string& entry) {
        std::string name = entry.substr(0, entry.find('=') + 1);
        if (name == "NVTX_INJECTION64_PATH=" || name == "CUABI_NVTX=" || name == "CUABI_NVTX_RECORD=") return true;
        for (const std::string& extra : extra_env)
            if (extra.compare(0, name.size(), name) == 0) return true;
        return false;
    };
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e)
        if (!overridden(*e)) env.push_back(*e);
    if (inject) env.push_back("NVTX_INJECTION64_PATH=" + recorder);
    env.push_back("CUABI_NVTX_RECORD=" + record_path);
    for (const std::string& extra : extra_env) env.push_back(extra);
    std::vector<char*> envp;
    for (std::string& entry : env) envp.push_back(&entry[0]);
    envp.push_back(nullptr);
    std::vector<std::string> args = {program, scenario};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(&arg[0]);
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, output_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    pid_t pid = 0;
    int spawned = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0) {
        child.output = "posix_spawn(" + program + ") failed: " + std::strerror(spawned);
    } else {
        int wait_status = 0;
        waitpid(pid, &wait_status, 0);
        child.exit_code = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
        child.output = read_file(output_path);
        child.events = read_events(record_path);
    }
    std::remove(record_path.c_str());
    std::remove(output_path.c_str());
    rmdir(dir.data());
    return child;
}

// The push/pop nesting of one thread as text: a push is "domain:message(" and its pop ")", so
// "cuabi:frame(app:inner())" is frame containing inner. A pop in another domain than the
// innermost open push, or with nothing open, shows as "!pop(domain)".
inline std::string nesting(const std::vector<Event>& events, long thread) {
    std::string text;
    std::vector<std::string> open;
    for (const Event& e : events) {
        if (e.thread != thread) continue;
        if (e.event == "push") {
            text += e.domain + ":" + e.message + "(";
            open.push_back(e.domain);
        } else if (e.event == "pop") {
            if (open.empty() || open.back() != e.domain) {
                text += "!pop(" + e.domain + ")";
            } else {
                text += ")";
                open.pop_back();
            }
        }
    }
    return text;
}

// `text` with every 32-hex-digit cache key replaced by "KEY".
inline std::string without_keys(const std::string& text) {
    return std::regex_replace(text, std::regex("[0-9a-f]{32}"), "KEY");
}

// Threads that pushed anything, in the order of their first push.
inline std::vector<long> pushing_threads(const std::vector<Event>& events) {
    std::vector<long> threads;
    for (const Event& e : events)
        if (e.event == "push" && std::find(threads.begin(), threads.end(), e.thread) == threads.end())
            threads.push_back(e.thread);
    return threads;
}

struct StartEnd {
    std::string domain, message;
    long start_thread = 0, end_thread = 0;
    int ends = 0;
};

// Start/end ranges by range id.
inline std::map<uint64_t, StartEnd> start_end_ranges(const std::vector<Event>& events) {
    std::map<uint64_t, StartEnd> ranges;
    for (const Event& e : events) {
        if (e.event == "start") {
            StartEnd& r = ranges[e.range_id];
            r.domain = e.domain;
            r.message = e.message;
            r.start_thread = e.thread;
        } else if (e.event == "end") {
            StartEnd& r = ranges[e.range_id];
            r.end_thread = e.thread;
            ++r.ends;
        }
    }
    return ranges;
}

// The catalog names of the cuabi-domain ranges in `events` ("cuabi.launch: saxpy" counts as
// "cuabi.launch").
inline std::set<std::string> library_ranges(const std::vector<Event>& events) {
    std::set<std::string> names;
    for (const Event& e : events) {
        if (e.event != "push" || e.domain != "cuabi" || e.message.rfind("cuabi.", 0) != 0) continue;
        names.insert(e.message.substr(0, e.message.find(": ")));
    }
    return names;
}

}  // namespace nvtx_record
