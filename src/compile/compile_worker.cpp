#include "compile/compile_worker.hpp"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "compile/compile_log.hpp"
#include "compile/pch_policy.hpp"
#include "compile/worker_protocol.hpp"
#include "core/child_process.hpp"
#include "core/environment.hpp"
#include "core/helper_executable.hpp"
#include "driver/nvrtc_api_locate.hpp"

namespace cuabi {
namespace {

constexpr char kWorkerName[] = "cuabi-compile-worker";
// How long a worker whose socket closed gets to be reaped on its own, so that its crash is
// reported as its own signal rather than as the kill that follows.
constexpr int kCrashGraceMs = 2000;
// The worker ends itself this long after the host's deadline for the job: the host kills it at
// the deadline, unless the host itself is stopped or gone.
constexpr uint64_t kBudgetGraceMs = 1000;

// The workers of one process. After fork() a child makes its own and leaves the parent's
// alone: another thread may have held this mutex at the fork.
struct Pool {
    explicit Pool(pid_t pid) : owner(pid) {}
    const pid_t owner;
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<ChildProcess> idle;
    int running = 0;  // slots taken: idle workers, busy ones, and ones being started
    bool facts_known = false;
    NvrtcFacts facts;
    Status failure = CUABI_SUCCESS;  // sticky: the worker could not load NVRTC
    std::string failure_message;
    std::string pch_problem;  // from the last worker's hello, once facts_known
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

// A slot of the pool and the worker in it, from the moment the slot is taken until the worker is
// given back idle or has ended -- on every path out, a thrown std::bad_alloc and a cancelled
// thread's unwinding included, so that no failure can shrink the pool for good.
class Lease {
public:
    explicit Lease(Pool& p) : pool_(p) {}
    ~Lease() {
        if (counted_) end(/*kill_now=*/true);
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    bool counted() const { return counted_; }
    void count() { counted_ = true; }  // with the pool's mutex held, after ++running
    void take(const ChildProcess& worker) {
        counted_ = true;
        worker_ = worker;
    }
    ChildProcess& worker() { return worker_; }

    void give_back() {
        std::lock_guard<std::mutex> lock(pool_.mutex);
        pool_.idle.push_back(worker_);  // within the capacity acquire() reserved: cannot throw
        worker_ = ChildProcess();
        counted_ = false;
        pool_.changed.notify_all();
    }

    ChildEnding end(bool kill_now, int grace_ms = 0) noexcept {
        ChildEnding ending = end_child(&worker_, kill_now, grace_ms);
        std::lock_guard<std::mutex> lock(pool_.mutex);
        --pool_.running;
        counted_ = false;
        pool_.changed.notify_all();
        return ending;
    }

private:
    Pool& pool_;
    ChildProcess worker_;
    bool counted_ = false;
};

// The cores this process may run on (its affinity mask, which a container's cpuset narrows),
// at least 2 so that one long compile never holds up every other.
uint64_t cores_available() {
    cpu_set_t set;
    int cores = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set)
                                                            : static_cast<int>(std::thread::hardware_concurrency());
    return static_cast<uint64_t>(std::clamp(cores, 2, 64));
}

const NumberSetting& pool_limit() {
    static const NumberSetting limit = read_number_setting(
        "CUABI_COMPILE_WORKERS", 1, 64, cores_available(),
        "set CUABI_COMPILE_WORKERS to a number of workers from 1 to 64, or unset it");
    return limit;
}

// How long a compile waiting for a slot sleeps between looks at its cancel token.
constexpr int64_t kCancelPollMs = 5;

Status fail_start(const std::string& what) {
    return fail(CUABI_ERROR_NVRTC,
                "reinstall cuabi (the worker belongs in <libdir>/cuabi/ beside libcuabi.so), point CUABI_COMPILE_WORKER "
                "at it, or compile in this process with CUABI_COMPILE_IN_PROCESS (or CUABI_COMPILE_ISOLATION=in-process)",
                "the compile worker could not be started: %s", what.c_str());
}

Status fail_deadline(const Deadline& deadline, const char* what) {
    return fail(CUABI_ERROR_TIMEOUT,
                "raise cuabi_compile_options.timeout_ms (or CUABI_COMPILE_TIMEOUT_MS) for a compile this long, or look "
                "for an #include that waits (a FIFO, a hung network file system)",
                "%s when %s passed", what, deadline.describe().c_str());
}

// Starts a worker into `lease` (whose slot is counted) and reads its hello; the pool learns its
// NVRTC's facts or why it has none.
Status start(Pool& p, const Deadline& deadline, Lease& lease) {
    std::string why;
    std::string path = compile_worker_path(&why);
    if (path.empty()) return fail_start(why);
    std::vector<std::string> arguments = {"--nvrtc", nvrtc_location().path};
    if (pch_mode() != PchMode::Off) arguments.insert(arguments.end(), {kPchArgument, kPchOn});
    if (!spawn_child(path, arguments, &lease.worker(), &why)) return fail_start(why);
    std::vector<uint8_t> frame;
    worker::Hello hello;
    uint32_t sent_status = 0;
    frames::Io got = frames::receive_frame(lease.worker().fd, &frame, deadline.at_ms, worker::kMaxHelloBytes);
    if (got != frames::Io::Ok || !worker::decode(frame, &hello, &sent_status)) {
        std::string death = describe(lease.end(got != frames::Io::Closed, kCrashGraceMs));
        if (got == frames::Io::TimedOut)
            return fail_deadline(deadline, "the compile worker had not finished loading NVRTC");
        if (got == frames::Io::Closed)
            return fail_start(format("'%s' %s before it had loaded NVRTC", path.c_str(), death.c_str()));
        return fail_start(format("'%s' did not answer as a cuabi %s does (%s); it was stopped", path.c_str(),
                                 kWorkerName,
                                 got == frames::Io::TooLarge ? "its first message claimed to be too large"
                                 : got == frames::Io::Ok     ? format("a greeting of %zu bytes that does not decode, "
                                                                      "status %u", frame.size(), sent_status).c_str()
                                                             : "reading its first message failed"));
    }
    std::lock_guard<std::mutex> lock(p.mutex);
    if (hello.status != CUABI_SUCCESS) {
        p.failure = hello.status;
        p.failure_message = hello.message;
        return fail_as_recorded(hello.status, 0, hello.message);
    }
    p.facts = hello.facts;
    p.facts_known = true;
    p.pch_problem = hello.pch_problem;
    return CUABI_SUCCESS;
}

// Fills `lease` with an idle worker that is still alive, a new one, or -- when the pool is full --
// the next one given back. Idle workers that died or were stopped meanwhile are ended and
// replaced; *replaced says how the last one had ended.
Status acquire(Pool& p, const Deadline& deadline, Lease& lease, std::string* replaced) {
    const int limit = static_cast<int>(pool_limit().value);
    if (Status refused = pool_limit().problem->report_once()) return refused;
    std::unique_lock<std::mutex> lock(p.mutex);
    for (;;) {
        if (p.failure != CUABI_SUCCESS) return fail_as_recorded(p.failure, 0, p.failure_message);
        if (!p.idle.empty()) {
            lease.take(p.idle.back());
            p.idle.pop_back();
            ChildEnding ending;
            ChildHealth health = check_idle_child(&lease.worker(), &ending);
            if (health == ChildHealth::Ready) return CUABI_SUCCESS;
            lock.unlock();
            if (health == ChildHealth::Gone) {
                ChildEnding reaped = lease.end(false, kCrashGraceMs);
                if (!ending.known) ending = reaped;
                *replaced = "an idle compile worker " + describe(ending) + " and was replaced";
            } else {
                lease.end(true);
                *replaced = "an idle compile worker had been stopped (SIGSTOP or a debugger) and was replaced";
            }
            lock.lock();
            continue;
        }
        if (p.running < limit) {
            p.idle.reserve(static_cast<size_t>(limit));  // so that giving a worker back never allocates
            ++p.running;
            lease.count();
            lock.unlock();
            return start(p, deadline, lease);  // on failure the lease ends the worker and frees the slot
        }
        if (deadline.cancel != nullptr && deadline.cancel->cancelled())
            return fail_cancelled("this request", "it waited for one of the compile workers");
        auto left = std::chrono::milliseconds(std::max<int64_t>(deadline.at_ms - frames::now_ms(), 0));
        if (deadline.cancel != nullptr) {
            // Woken by nothing when cancelled: looks again every few milliseconds.
            if (deadline.at_ms != frames::kNoDeadline && left.count() == 0)
                return fail(CUABI_ERROR_TIMEOUT,
                            "raise cuabi_compile_options.timeout_ms, or CUABI_COMPILE_WORKERS to run more compiles at once",
                            "all %d compile workers stayed busy until %s passed", limit, deadline.describe().c_str());
            p.changed.wait_for(lock, deadline.at_ms == frames::kNoDeadline
                                         ? std::chrono::milliseconds(kCancelPollMs)
                                         : std::min(left, std::chrono::milliseconds(kCancelPollMs)));
        } else if (deadline.at_ms == frames::kNoDeadline) {
            p.changed.wait(lock);
        } else if (p.changed.wait_for(lock, left) == std::cv_status::timeout && frames::now_ms() >= deadline.at_ms) {
            return fail(CUABI_ERROR_TIMEOUT,
                        "raise cuabi_compile_options.timeout_ms, or CUABI_COMPILE_WORKERS to run more compiles at once",
                        "all %d compile workers stayed busy until %s passed", limit, deadline.describe().c_str());
        }
    }
}

Status fail_death(const NvrtcJob& job, const ChildEnding& ending, const std::string& replaced) {
    const bool outside = ending.known && WIFSIGNALED(ending.status) &&
                         (WTERMSIG(ending.status) == SIGKILL || WTERMSIG(ending.status) == SIGTERM);
    return fail(CUABI_ERROR_NVRTC,
                outside ? "find what ends processes here (the OOM killer: see dmesg; a cgroup's memory limit; an "
                          "administrator), then retry"
                        : "NVRTC itself failed on this source: check it for errors (NVRTC 13.0 crashes on some invalid "
                          "template code with name expressions), update NVRTC, or debug it in this process with "
                          "CUABI_COMPILE_IN_PROCESS",
                "the compile worker %s after it was sent '%s' for %s%s; this process is unharmed%s%s",
                describe(ending).c_str(), job.program_name.c_str(), job.target.c_str(),
                outside ? " (a signal from outside the worker: NVRTC does not raise it)" : ", while NVRTC compiled it",
                replaced.empty() ? "" : ". Before that, ", replaced.c_str());
}

}  // namespace

std::string Deadline::describe() const {
    if (at_ms == frames::kNoDeadline) return "no deadline";
    return format("the compile's deadline (%u ms, %s)", ms, source);
}

std::string compile_worker_path(std::string* why) {
    struct Location {
        std::string path;
        std::string why;
    };
    // Located and checked once: every worker is started from the file checked.
    static const Location location = [] {
        Location found;
        found.path = helper_executable(kWorkerName, "CUABI_COMPILE_WORKER", &found.why);
        return found;
    }();
    if (why != nullptr) *why = location.why;
    return location.path;
}

Status worker_nvrtc_facts(const Deadline& deadline, NvrtcFacts* out) {
    Pool& p = pool();
    {
        std::lock_guard<std::mutex> lock(p.mutex);
        if (p.facts_known) {
            *out = p.facts;
            return CUABI_SUCCESS;
        }
    }
    Lease lease(p);
    std::string replaced;
    Status status = acquire(p, deadline, lease, &replaced);
    if (status != CUABI_SUCCESS) return status;
    lease.give_back();
    std::lock_guard<std::mutex> lock(p.mutex);
    *out = p.facts;
    return CUABI_SUCCESS;
}

Status compile_in_worker(const NvrtcJob& job, const Deadline& deadline, cache::CachedImage* out, std::string* out_log,
                         const std::string& pch_key, const std::string& pch_cache_directory, PchReport* pch_report) {
    Pool& p = pool();
    // Encoded before a slot is taken: the largest allocation of the path holds nothing.
    worker::Job sent{job, 0, pch_key, pch_cache_directory};
    if (deadline.at_ms != frames::kNoDeadline)
        sent.budget_ms = static_cast<uint64_t>(std::max<int64_t>(deadline.at_ms - frames::now_ms(), 1)) + kBudgetGraceMs;
    const std::vector<uint8_t> request = worker::encode(sent);
    std::string replaced;
    for (int attempt = 0;; ++attempt) {
        Lease lease(p);
        Status status = acquire(p, deadline, lease, &replaced);
        if (status != CUABI_SUCCESS) return status;
        const pid_t pid = lease.worker().pid;
        if (deadline.cancel != nullptr && !deadline.cancel->enlist(pid)) {
            lease.give_back();
            return fail_cancelled(job.program_name.c_str(), "it waited for one of the compile workers");
        }
        frames::Io io = frames::send_frame(lease.worker().fd, request, deadline.at_ms);
        if (io == frames::Io::Closed && attempt == 0) {
            // It hung up before taking the job, so NVRTC never saw it: once more, with another.
            ChildEnding ending = lease.end(false, kCrashGraceMs);
            if (deadline.cancel != nullptr) deadline.cancel->discharge(pid);
            replaced = "the compile worker first chosen " + describe(ending) + " before it took the job";
            continue;
        }
        std::vector<uint8_t> frame;
        if (io == frames::Io::Ok) io = frames::receive_frame(lease.worker().fd, &frame, deadline.at_ms, frames::kMaxFrameBytes);
        if (deadline.cancel != nullptr && deadline.cancel->discharge(pid)) {
            // Killed, or about to be: a worker a cancel may have reached is never reused.
            lease.end(true, kCrashGraceMs);
            return fail_cancelled(job.program_name.c_str(),
                                  "NVRTC was compiling it in the compile worker, which was killed");
        }
        worker::Outcome outcome;
        uint32_t sent_status = 0;
        if (io == frames::Io::Ok && worker::decode(frame, &outcome, &sent_status)) {
            lease.give_back();
            *out_log = std::move(outcome.log);
            if (pch_report != nullptr) *pch_report = outcome.pch;
            if (outcome.status != CUABI_SUCCESS)
                return fail_as_recorded(outcome.status, outcome.nvrtc_result, outcome.message);
            *out = std::move(outcome.image);
            return CUABI_SUCCESS;
        }
        if (io == frames::Io::TimedOut) {
            lease.end(true);
            return fail_deadline(deadline, format("NVRTC was still compiling '%s' for %s (the compile worker was "
                                                  "stopped)", job.program_name.c_str(), job.target.c_str()).c_str());
        }
        if (io == frames::Io::Closed) return fail_death(job, lease.end(false, kCrashGraceMs), replaced);
        std::string death = describe(lease.end(true));
        return fail(CUABI_ERROR_NVRTC, "reinstall cuabi: the compile worker must be the one built with this library",
                    "the compile worker's answer for '%s' was not one cuabi can read (%s); it was stopped and "
                    "%s",
                    job.program_name.c_str(),
                    io == frames::Io::TooLarge
                        ? "it claimed more than 2 GiB"
                        : io == frames::Io::Ok ? format("%zu bytes that do not decode; status %u", frame.size(),
                                                        sent_status).c_str()
                                               : "reading it failed",
                    death.c_str());
    }
}

Status compile_workers_limit(uint32_t* out) {
    *out = static_cast<uint32_t>(pool_limit().value);
    return pool_limit().problem->report_once();
}

bool worker_pch_problem(std::string* out) {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (!p.facts_known) return false;
    *out = p.pch_problem;
    return true;
}

int compile_workers_running() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    return p.running;
}

void read_worker_environment() { pool_limit(); }

}  // namespace cuabi
