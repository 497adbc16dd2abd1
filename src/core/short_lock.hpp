// A mutex for critical sections of a few instructions on hot paths (the handle table's slot
// queue, taken by every create and destroy). Uncontended, lock and unlock are one atomic
// instruction each, inline, where std::mutex makes two calls into libc (about 60 instructions a
// pair). Contended, a thread sleeps on a futex (wait.hpp) as it would in std::mutex: the word is
// 0 free, 1 locked, 2 locked with sleepers, so unlock makes a system call only when someone
// sleeps. Constant-initialized and trivially destructible, so it can live in objects that exist
// before any constructor runs and are never destroyed. Not recursive. ThreadSanitizer is told it
// is a mutex, so it checks lock order through it as through any other.
#pragma once

#include <atomic>
#include <cstdint>

#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#endif

namespace cuabi {

class ShortLock {
public:
    constexpr ShortLock() = default;
    ShortLock(const ShortLock&) = delete;
    ShortLock& operator=(const ShortLock&) = delete;

    void lock() noexcept {
        annotate_pre_lock();
        uint32_t expected = kFree;
        if (!word_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire, std::memory_order_relaxed))
            lock_contended();
        annotate_post_lock();
    }

    void unlock() noexcept {
        annotate_pre_unlock();
        if (word_.exchange(kFree, std::memory_order_release) == kSleepers) wake_sleeper();
        annotate_post_unlock();
    }

private:
    static constexpr uint32_t kFree = 0, kLocked = 1, kSleepers = 2;
    [[gnu::cold]] void lock_contended() noexcept;
    [[gnu::cold]] void wake_sleeper() noexcept;

#if defined(__SANITIZE_THREAD__)
    void annotate_pre_lock() noexcept { __tsan_mutex_pre_lock(this, __tsan_mutex_linker_init); }
    void annotate_post_lock() noexcept { __tsan_mutex_post_lock(this, __tsan_mutex_linker_init, 0); }
    void annotate_pre_unlock() noexcept { __tsan_mutex_pre_unlock(this, 0); }
    void annotate_post_unlock() noexcept { __tsan_mutex_post_unlock(this, 0); }
#else
    void annotate_pre_lock() noexcept {}
    void annotate_post_lock() noexcept {}
    void annotate_pre_unlock() noexcept {}
    void annotate_post_unlock() noexcept {}
#endif

    std::atomic<uint32_t> word_{kFree};
};

}  // namespace cuabi
