// cuabi's helper processes (the compile worker, the image verifier, the remote cache helper):
// started and ended the same way, each talking to cuabi over a private socket pair.
//
// Started with posix_spawn from an absolute path as "<path> <arguments...> --parent <pid>" (so
// that it can tell it outlived its parent before it started; core/helper_side.hpp), its socket on
// descriptor kChildSocket, /dev/null as its standard streams (it must not keep the caller's
// pipes open past the caller), an empty signal mask and default dispositions (the caller may
// block or ignore signals; Go does). Ended by closing the socket and reaping it, so that how it
// ended can be said. Helpers end themselves when their parent is gone (core/parent_watchdog.hpp).
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace cuabi {

constexpr int kChildSocket = 3;  // the descriptor the helper finds its socket on

struct ChildProcess {
    pid_t pid = -1;  // -1 once reaped (or once this process no longer has it)
    int fd = -1;     // this side of the socket pair; -1 once closed
    bool running() const { return pid > 0; }
};

// How a child ended: its wait status, when this process reaped it (a host that ignores SIGCHLD
// has its children reaped for it, and then nobody knows).
struct ChildEnding {
    bool known = false;
    int status = 0;
};

// Starts `path` (absolute) with `arguments`, then "--parent <this pid>". False with *why.
bool spawn_child(const std::string& path, const std::vector<std::string>& arguments, ChildProcess* out,
                 std::string* why);

// Closes the socket and reaps the child. kill_now: SIGKILL at once; else the child gets up to
// `grace_ms` to end by itself first (a crash is then reported as its own signal, not as the
// kill). A child this process no longer has is never killed: its pid may be someone else's.
// Allocates nothing: safe while a thread is being cancelled.
ChildEnding end_child(ChildProcess* child, bool kill_now, int grace_ms) noexcept;

// "was killed by signal 9 (Killed)", "exited with status 2", ...
std::string describe(const ChildEnding& ending);

// Whether an idle child can take work. Gone: it ended (then *ending says how when this process
// reaped it) or hung up its socket; Stopped: SIGSTOP or a debugger holds it. Either way it must
// be replaced (end_child()).
enum class ChildHealth { Ready, Gone, Stopped };
ChildHealth check_idle_child(ChildProcess* child, ChildEnding* ending) noexcept;

}  // namespace cuabi
