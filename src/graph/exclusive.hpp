// The guard that serializes the operations on one graph's executable.
//
// CUDA requires callers to serialize their uses of one CUgraphExec; cuabi does it for them, and
// replay is the hot path. Taking this guard uncontended is one atomic exchange and releasing it
// one release store (a plain store on x86 and a store-release on Arm), where a std::mutex costs
// two locked read-modify-writes plus two calls into libc. Contention only happens when a caller
// really uses one graph from several threads at the same instant; waiters then yield the CPU,
// because some holders (re-instantiation after a whole-graph update) take milliseconds.
#pragma once

#include <atomic>
#include <thread>

namespace cuabi {
namespace graph {

// BasicLockable, for std::lock_guard. Not recursive.
class Exclusive {
public:
    void lock() noexcept {
        while (held_.exchange(true, std::memory_order_acquire))
            while (held_.load(std::memory_order_relaxed)) std::this_thread::yield();
    }
    void unlock() noexcept { held_.store(false, std::memory_order_release); }

private:
    std::atomic<bool> held_{false};
};

}  // namespace graph
}  // namespace cuabi
