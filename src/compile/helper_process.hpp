// A helper process cuabi starts and talks to over a private socket pair (the image verifier,
// compile/image_verifier.hpp): a small executable next to the library, trusted only when no other
// user can change it, started with the socket on descriptor 3, default signal dispositions and an
// empty signal mask, its standard input and output on /dev/null; ended and reaped with what became
// of it ("was killed by signal 11 (Segmentation fault)").
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cuabi {
namespace helper_process {

constexpr int kSocket = 3;  // the descriptor a helper finds its socket on

struct Child {
    pid_t pid = -1;
    int fd = -1;  // this process's end of the socket
    bool running() const { return pid >= 0; }
};

// `name` beside the library's own file, in <dir of libcuabi.so>/cuabi/ -- or $`override_variable`
// when set -- or "" with *why saying what was looked for and why it was refused (it must be a
// regular, executable file that only its owner, root or this user, may change).
std::string locate(const char* name, const char* override_variable, std::string* why);

// Starts `path` with `arguments` (after argv[0]). False, with *why, when it could not be started.
bool spawn(const std::string& path, const std::vector<std::string>& arguments, Child* out, std::string* why);

// Ends `child` and says how it ended. A child that closed its socket is given a moment to be
// reaped on its own, so that a crash is reported as its signal, not as the kill that follows; a
// child this process no longer has (a host that ignores SIGCHLD reaps them) is never killed.
std::string reap(Child* child, bool kill_now);

// Reaps `child` if it has ended on its own (between conversations); true when it had.
bool reap_if_ended(Child* child);

// For the helper itself: closes every descriptor above its socket that it inherited.
void close_inherited_descriptors();

}  // namespace helper_process
}  // namespace cuabi
