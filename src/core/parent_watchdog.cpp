#include "core/parent_watchdog.hpp"

#include <poll.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <system_error>
#include <thread>

namespace cuabi {
namespace parent_watchdog {
namespace {

constexpr int kTickMs = 100;  // how late the watchdog may notice

std::atomic<int64_t> job_deadline_ms{0};  // CLOCK_MONOTONIC; 0: no job, or no limit

int64_t now_ms() {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return int64_t(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

[[noreturn]] void watch(int socket, pid_t parent) {
    for (;;) {
        // No events asked for: poll() still reports a hang-up or an error, and never consumes
        // the bytes the main thread is to read.
        struct pollfd connection = {socket, 0, 0};
        int ready = poll(&connection, 1, kTickMs);
        if (ready > 0 && (connection.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) _exit(kParentGone);
        if (getppid() != parent) _exit(kParentGone);
        int64_t deadline = job_deadline_ms.load(std::memory_order_relaxed);
        if (deadline != 0 && now_ms() >= deadline) _exit(kBudgetSpent);
    }
}

}  // namespace

bool start(int socket, pid_t parent) {
    try {
        std::thread(watch, socket, parent).detach();
        return true;
    } catch (const std::system_error&) {
        return false;
    }
}

void begin_job(uint64_t budget_ms) {
    job_deadline_ms.store(budget_ms == 0 ? 0 : now_ms() + static_cast<int64_t>(budget_ms), std::memory_order_relaxed);
}

void end_job() { job_deadline_ms.store(0, std::memory_order_relaxed); }

}  // namespace parent_watchdog
}  // namespace cuabi
