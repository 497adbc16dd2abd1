// Starting cuabi's helper executables (<libdir>/cuabi/cuabi-*) and ending them: each runs with
// one end of a private socket pair on descriptor 3, stdin/stdout on /dev/null, default signal
// dispositions and an empty signal mask (the host may block or ignore signals; Go does), and
// "--parent <pid>" so that it can tell when it outlived its parent before it started.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cuabi {

constexpr int kHelperSocket = 3;  // the descriptor a helper finds its socket on

struct HelperProcess {
    pid_t pid = -1;
    int fd = -1;  // this process's end of the socket pair
};

// `name` beside the file this code was loaded from (libcuabi.so, or a test executable), in its
// cuabi/ folder, unless the environment variable `override_variable` names another file. It must be
// a regular, executable file that only its owner -- root or this user -- may change; otherwise ""
// and *why says what was looked for and why it was refused.
std::string helper_executable(const char* name, const char* override_variable, std::string* why);

// Starts `path` with `arguments` after "--parent <pid>". False with *why on failure.
bool start_helper(const std::string& path, const std::vector<std::string>& arguments, HelperProcess* out,
                  std::string* why);

// Closes the socket and reaps the helper, killing it when `kill_now` (or when it has not ended 2 s
// after its socket closed). Says how it ended ("was killed by signal 9 (Killed)"). A child this
// process no longer has (a host that ignores SIGCHLD reaps them) is never killed: its pid may
// belong to someone else by now.
std::string stop_helper(const HelperProcess& helper, bool kill_now);

}  // namespace cuabi
