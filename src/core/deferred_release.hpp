// References whose release must wait until cuabi runs on a thread of its caller.
//
// The CUDA driver calls the destructor of a user object (graph/retention.hpp) when the last graph
// holding it dies, on an internal thread or inside the call that dropped it, and forbids CUDA
// calls there. Dropping cuabi's reference to a buffer may free device memory (cuMemFree), so the
// destructor only queues the reference -- a lock-free push that allocates nothing -- and cuabi drops
// what is queued at its next call that may have made some: after destroying or discarding a graph,
// before allocating a buffer (so that memory a finished graph held is reused) and when a handle is
// destroyed.
#pragma once

#include <atomic>
#include <memory>

#include "core/handle_table.hpp"

namespace cuabi {

class DeferredRelease {
public:
    // A reference to `object` that queue() will later hand over for release. Allocates (here, not
    // in the driver's callback); nullptr when the host cannot.
    static DeferredRelease* hold(std::shared_ptr<const Object> object) noexcept;
    // Drops a held reference at once (when it was never handed to the driver).
    static void discard(DeferredRelease* held) noexcept;
    // The user-object destructor: queues `held` (a DeferredRelease*). Any thread, no lock.
    static void queue(void* held) noexcept;
    // Drops every queued reference on this thread; one atomic load when none is queued. Does
    // nothing in a fork() child (freeing device memory there would call the driver).
    static void release_queued() noexcept;

private:
    explicit DeferredRelease(std::shared_ptr<const Object> object) : object_(std::move(object)) {}
    static void release_all() noexcept;

    std::shared_ptr<const Object> object_;
    DeferredRelease* next_ = nullptr;
    static std::atomic<DeferredRelease*> queued_;
};

inline void DeferredRelease::release_queued() noexcept {
    if (queued_.load(std::memory_order_relaxed) != nullptr) release_all();
}

}  // namespace cuabi
