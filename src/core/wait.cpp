#include "core/wait.hpp"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <climits>
#include <thread>

namespace cuabi {
namespace {

static_assert(sizeof(std::atomic<uint32_t>) == sizeof(uint32_t) && std::atomic<uint32_t>::is_always_lock_free,
              "a futex word must be a plain 32-bit word");

// Process-private futex: the words live in cuabi's own memory, never shared between processes.
long futex(const std::atomic<uint32_t>& word, int operation, uint32_t value, const timespec* timeout) noexcept {
    return syscall(SYS_futex, const_cast<std::atomic<uint32_t>*>(&word), operation | FUTEX_PRIVATE_FLAG, value, timeout,
                   nullptr, 0);
}

}  // namespace

void wait_while_equal(const std::atomic<uint32_t>& word, uint32_t expected, uint64_t timeout_ns) noexcept {
    timespec timeout{static_cast<time_t>(timeout_ns / 1000000000u), static_cast<long>(timeout_ns % 1000000000u)};
    futex(word, FUTEX_WAIT, expected, timeout_ns != 0 ? &timeout : nullptr);
}

void wake_all(const std::atomic<uint32_t>& word) noexcept { futex(word, FUTEX_WAKE, INT_MAX, nullptr); }

void wake_one(const std::atomic<uint32_t>& word) noexcept { futex(word, FUTEX_WAKE, 1, nullptr); }

bool SpinBudget::spin() noexcept {
    if (rounds_ >= kSpinRounds) return false;
    ++rounds_;
    if (rounds_ < kSpinRounds / 2) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        asm volatile("yield");
#endif
    } else {
        std::this_thread::yield();
    }
    return true;
}

}  // namespace cuabi
