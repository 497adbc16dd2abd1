#include "compile/compile_worker.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include "compile/compile_log.hpp"
#include "compile/worker_protocol.hpp"
#include "driver/nvrtc_api_locate.hpp"

extern char** environ;

namespace cuabi {
namespace {

constexpr char kWorkerName[] = "cuabi-compile-worker";
constexpr int kWorkerSocket = 3;  // the descriptor the worker finds its socket on

struct Worker {
    pid_t pid = -1;
    int fd = -1;
};

// The workers of one process. After fork() a child makes its own and leaves the parent's
// alone: another thread may have held this mutex at the fork.
struct Pool {
    explicit Pool(pid_t pid) : owner(pid) {}
    const pid_t owner;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<Worker> idle;
    int running = 0;
    bool facts_known = false;
    NvrtcFacts facts;
    Status failure = CUABI_SUCCESS;  // sticky: the worker could not load NVRTC
    std::string failure_message;
};

std::atomic<Pool*> current{nullptr};

Pool& pool() {
    pid_t me = getpid();
    Pool* pool = current.load(std::memory_order_acquire);
    while (pool == nullptr || pool->owner != me) {
        Pool* fresh = new Pool(me);  // a parent's pool, if any, is left as it is: never freed
        if (current.compare_exchange_strong(pool, fresh, std::memory_order_acq_rel)) return *fresh;
        delete fresh;
    }
    return *pool;
}

int pool_limit() {
    const char* text = secure_getenv("CUABI_COMPILE_WORKERS");
    int limit = text != nullptr ? std::atoi(text) : 0;
    if (limit >= 1 && limit <= 64) return limit;
    return static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 2u, 4u));
}

// The worker file must be as trustworthy as the library it serves.
std::string refuse(const std::string& path) {
    struct stat info;
    if (stat(path.c_str(), &info) != 0) return format("'%s' does not exist", path.c_str());
    if (!S_ISREG(info.st_mode) || (info.st_mode & S_IXUSR) == 0)
        return format("'%s' is not an executable file", path.c_str());
    if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0 || (info.st_uid != 0 && info.st_uid != geteuid()))
        return format("'%s' may be changed by another user (mode %03o, owner uid %u)", path.c_str(),
                      static_cast<unsigned>(info.st_mode & 0777), static_cast<unsigned>(info.st_uid));
    return "";
}

struct Location {
    std::string path;
    std::string why;
};

Location locate_worker() {
    Location location;
    const char* override_path = secure_getenv("CUABI_COMPILE_WORKER");
    std::string path;
    if (override_path != nullptr && *override_path != '\0') {
        path = override_path;
    } else {
        // Next to the file this code was loaded from: <libdir>/cuabi/ for libcuabi.so.
        Dl_info self{};
        char resolved[4096];
        if (dladdr(reinterpret_cast<void*>(&compile_worker_path), &self) == 0 || self.dli_fname == nullptr ||
            realpath(self.dli_fname, resolved) == nullptr) {
            location.why = "the library could not find its own file to look beside it";
            return location;
        }
        std::string library = resolved;
        path = library.substr(0, library.rfind('/')) + "/cuabi/" + kWorkerName;
    }
    location.why = refuse(path);
    if (location.why.empty()) location.path = path;
    return location;
}

std::string death_of(int status) {
    if (WIFSIGNALED(status))
        return format("was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    if (WIFEXITED(status)) return format("exited with status %d", WEXITSTATUS(status));
    return "ended";
}

// Ends `worker` and says how it ended. A worker that closed its socket is given a moment to be
// reaped on its own, so that a crash is reported as its signal, not as the kill that follows.
// A child this process no longer has (a host that ignores SIGCHLD reaps them) is never killed:
// its pid may belong to someone else by now.
std::string reap(const Worker& worker, bool kill_now) {
    close(worker.fd);
    int status = 0;
    pid_t got = 0;
    for (int waited_ms = 0;; waited_ms += 5) {
        got = waitpid(worker.pid, &status, WNOHANG);
        if (got < 0 && errno == EINTR) continue;
        if (got != 0) break;
        if (kill_now || waited_ms >= 2000) {
            kill(worker.pid, SIGKILL);
            while ((got = waitpid(worker.pid, &status, 0)) < 0 && errno == EINTR) {
            }
            break;
        }
        usleep(5000);
    }
    if (got != worker.pid) return "ended (its exit status is unknown: this process does not keep its children's)";
    return death_of(status);
}

Status fail_start(const std::string& what) {
    return fail(CUABI_ERROR_NVRTC,
                "reinstall cuabi (the worker belongs in <libdir>/cuabi/ beside libcuabi.so), point CUABI_COMPILE_WORKER "
                "at it, or compile in this process with CUABI_COMPILE_IN_PROCESS (or CUABI_COMPILE_ISOLATION=in-process)",
                "the compile worker could not be started: %s", what.c_str());
}

Status spawn(const std::string& path, Worker* out) {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) return fail_start(strerror(errno));
    if (fds[1] == kWorkerSocket) {  // dup2 onto itself would keep close-on-exec
        int moved = fcntl(fds[1], F_DUPFD_CLOEXEC, kWorkerSocket + 1);
        close(fds[1]);
        fds[1] = moved;
    }
    std::string nvrtc = nvrtc_location().path, parent = std::to_string(getpid());
    std::vector<char*> argv = {const_cast<char*>(path.c_str()), const_cast<char*>("--nvrtc"),
                               const_cast<char*>(nvrtc.c_str()), const_cast<char*>("--parent"),
                               const_cast<char*>(parent.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], kWorkerSocket);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    sigset_t none, all;
    sigemptyset(&none);
    sigfillset(&all);
    posix_spawnattr_setsigmask(&attributes, &none);   // the host may block signals (Go does)
    posix_spawnattr_setsigdefault(&attributes, &all);  // and ignore some
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    pid_t pid = -1;
    int spawned = posix_spawn(&pid, path.c_str(), &actions, &attributes, argv.data(), environ);
    posix_spawnattr_destroy(&attributes);
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    if (spawned != 0) {
        close(fds[0]);
        return fail_start(format("posix_spawn '%s': %s", path.c_str(), strerror(spawned)));
    }
    out->pid = pid;
    out->fd = fds[0];
    return CUABI_SUCCESS;
}

// Starts a worker and reads its hello; the pool learns its NVRTC's facts or why it has none.
Status start(Pool& p, int64_t deadline_ms, Worker* out) {
    std::string why;
    std::string path = compile_worker_path(&why);
    if (path.empty()) return fail_start(why);
    Worker worker;
    Status status = spawn(path, &worker);
    if (status != CUABI_SUCCESS) return status;
    std::vector<uint8_t> frame;
    worker::Hello hello;
    worker::Io got = worker::receive_frame(worker.fd, &frame, deadline_ms);
    if (got != worker::Io::Ok || !worker::decode(frame, &hello)) {
        std::string death = reap(worker, got == worker::Io::TimedOut || got == worker::Io::Ok);
        if (got == worker::Io::TimedOut)
            return fail(CUABI_ERROR_TIMEOUT, "raise cuabi_compile_options.timeout_ms (or CUABI_COMPILE_TIMEOUT_MS)",
                        "the compile worker did not finish loading NVRTC before the compile's deadline");
        return fail_start(format("'%s' %s before it had loaded NVRTC", path.c_str(), death.c_str()));
    }
    std::lock_guard<std::mutex> lock(p.mutex);
    if (hello.status != CUABI_SUCCESS) {
        reap(worker, false);  // it exits after saying why
        p.failure = hello.status;
        p.failure_message = hello.message;
        return fail_as_recorded(hello.status, 0, hello.message);
    }
    p.facts = hello.facts;
    p.facts_known = true;
    *out = worker;
    return CUABI_SUCCESS;
}

// An idle worker, a new one, or -- when the pool is full -- the next one released.
Status acquire(Pool& p, int64_t deadline_ms, Worker* out) {
    std::unique_lock<std::mutex> lock(p.mutex);
    static const int limit = pool_limit();
    for (;;) {
        if (p.failure != CUABI_SUCCESS) return fail_as_recorded(p.failure, 0, p.failure_message);
        if (!p.idle.empty()) {
            *out = p.idle.back();
            p.idle.pop_back();
            return CUABI_SUCCESS;
        }
        if (p.running < limit) {
            ++p.running;
            lock.unlock();
            Status status = start(p, deadline_ms, out);
            if (status != CUABI_SUCCESS) {
                lock.lock();
                --p.running;
                p.changed.notify_all();
            }
            return status;
        }
        auto left = std::chrono::milliseconds(std::max<int64_t>(deadline_ms - worker::now_ms(), 0));
        if (p.changed.wait_for(lock, left) == std::cv_status::timeout && worker::now_ms() >= deadline_ms)
            return fail(CUABI_ERROR_TIMEOUT,
                        "raise cuabi_compile_options.timeout_ms, or CUABI_COMPILE_WORKERS to run more compiles at once",
                        "all %d compile workers stayed busy until the compile's deadline", limit);
    }
}

void release(Pool& p, const Worker& worker, bool healthy) {
    std::lock_guard<std::mutex> lock(p.mutex);
    if (healthy) {
        p.idle.push_back(worker);
    } else {
        --p.running;
    }
    p.changed.notify_all();
}

}  // namespace

std::string compile_worker_path(std::string* why) {
    static const Location location = locate_worker();
    if (why != nullptr) *why = location.why;
    return location.path;
}

Status worker_nvrtc_facts(int64_t deadline_ms, NvrtcFacts* out) {
    Pool& p = pool();
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        if (p.facts_known) {
            *out = p.facts;
            return CUABI_SUCCESS;
        }
    }
    Worker worker;
    Status status = acquire(p, deadline_ms, &worker);
    if (status != CUABI_SUCCESS) return status;
    release(p, worker, true);
    std::lock_guard<std::mutex> lock(p.mutex);
    *out = p.facts;
    return CUABI_SUCCESS;
}

Status compile_in_worker(const NvrtcJob& job, int64_t deadline_ms, cache::CachedImage* out, std::string* out_log) {
    Pool& p = pool();
    Worker worker;
    Status status = acquire(p, deadline_ms, &worker);
    if (status != CUABI_SUCCESS) return status;
    std::vector<uint8_t> frame;
    worker::Io io = worker::send_frame(worker.fd, worker::encode(job), deadline_ms);
    if (io == worker::Io::Ok) {
        try {
            io = worker::receive_frame(worker.fd, &frame, deadline_ms);
        } catch (const std::bad_alloc&) {
            io = worker::Io::Failed;
        }
    }
    worker::Outcome outcome;
    if (io == worker::Io::Ok && worker::decode(frame, &outcome)) {
        release(p, worker, true);
        *out_log = std::move(outcome.log);
        if (outcome.status != CUABI_SUCCESS) return fail_as_recorded(outcome.status, outcome.nvrtc_result, outcome.message);
        *out = std::move(outcome.image);
        return CUABI_SUCCESS;
    }
    std::string death = reap(worker, io == worker::Io::TimedOut || io == worker::Io::Ok);
    release(p, worker, false);
    if (io == worker::Io::TimedOut)
        return fail(CUABI_ERROR_TIMEOUT,
                    "raise cuabi_compile_options.timeout_ms (or CUABI_COMPILE_TIMEOUT_MS) for a compile this long, or "
                    "look for an #include that waits (a FIFO, a hung network file system)",
                    "NVRTC was still compiling '%s' for %s when the compile's deadline passed; the compile worker was "
                    "stopped",
                    job.program_name.c_str(), job.target.c_str());
    return fail(CUABI_ERROR_NVRTC,
                "NVRTC itself failed on this source: check it for errors (NVRTC 13.0 crashes on some invalid template "
                "code with name expressions), update NVRTC, or debug it in this process with CUABI_COMPILE_IN_PROCESS",
                "the compile worker %s while NVRTC compiled '%s' for %s; this process is unharmed",
                death.c_str(), job.program_name.c_str(), job.target.c_str());
}

int compile_workers_running() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    return p.running;
}

}  // namespace cuabi
