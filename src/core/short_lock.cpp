#include "core/short_lock.hpp"

#include "core/wait.hpp"

namespace cuabi {

void ShortLock::lock_contended() noexcept {
    // Spin first: the holder is usually a few instructions from unlocking.
    SpinBudget budget;
    while (budget.spin()) {
        uint32_t expected = kFree;
        if (word_.load(std::memory_order_relaxed) == kFree &&
            word_.compare_exchange_strong(expected, kLocked, std::memory_order_acquire, std::memory_order_relaxed))
            return;
    }
    // Then sleep. Taking the lock as kSleepers (rather than kLocked) is what makes its unlock wake
    // the next sleeper: this thread cannot tell whether others still sleep.
    while (word_.exchange(kSleepers, std::memory_order_acquire) != kFree) wait_while_equal(word_, kSleepers);
}

void ShortLock::wake_sleeper() noexcept { wake_one(word_); }

}  // namespace cuabi
