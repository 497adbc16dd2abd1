// The guard that serializes the operations on one graph's executable.
//
// CUDA requires callers to serialize their uses of one CUgraphExec; cuabi does it for them, and
// replay is the hot path. Taking this guard uncontended is one compare-and-swap and releasing it
// one exchange, where a std::mutex costs the same read-modify-writes plus two calls into libc.
// Contention only happens when a caller really uses one graph from several threads at the same
// instant. Some holders take milliseconds (re-instantiation after a whole-graph update), so a
// waiter spins only briefly and then sleeps until the holder wakes it (core/wait.hpp).
#pragma once

#include <atomic>
#include <cstdint>

#include "core/wait.hpp"

namespace cuabi {
namespace graph {

// BasicLockable, for std::lock_guard. Not recursive.
class Exclusive {
public:
    void lock() noexcept {
        uint32_t expected = kFree;
        if (!state_.compare_exchange_strong(expected, kHeld, std::memory_order_acquire, std::memory_order_relaxed))
            lock_contended();
    }
    void unlock() noexcept {
        if (state_.exchange(kFree, std::memory_order_release) == kHeldWithSleepers) wake_one(state_);
    }

private:
    static constexpr uint32_t kFree = 0, kHeld = 1, kHeldWithSleepers = 2;
    void lock_contended() noexcept {
        SpinBudget budget;
        while (budget.spin()) {
            uint32_t expected = kFree;
            if (state_.load(std::memory_order_relaxed) == kFree &&
                state_.compare_exchange_weak(expected, kHeld, std::memory_order_acquire, std::memory_order_relaxed))
                return;
        }
        // Announce a sleeper; whoever unlocks then wakes one. A thread that takes the guard this way
        // keeps the mark, so the next unlock wakes the next sleeper (at worst one wake too many).
        while (state_.exchange(kHeldWithSleepers, std::memory_order_acquire) != kFree)
            wait_while_equal(state_, kHeldWithSleepers);
    }

    std::atomic<uint32_t> state_{kFree};
};

}  // namespace graph
}  // namespace cuabi
