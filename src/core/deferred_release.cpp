#include "core/deferred_release.hpp"

#include <new>

#include "core/error.hpp"
#include "core/fork.hpp"

namespace cuabi {

std::atomic<DeferredRelease*> DeferredRelease::queued_{nullptr};

DeferredRelease* DeferredRelease::hold(std::shared_ptr<const Object> object) noexcept {
    return new (std::nothrow) DeferredRelease(std::move(object));
}

void DeferredRelease::discard(DeferredRelease* held) noexcept {
    PreserveLastError keep;
    delete held;
}

void DeferredRelease::queue(void* held) noexcept {
    DeferredRelease* node = static_cast<DeferredRelease*>(held);
    DeferredRelease* head = queued_.load(std::memory_order_relaxed);
    do {
        node->next_ = head;
    } while (!queued_.compare_exchange_weak(head, node, std::memory_order_release, std::memory_order_relaxed));
}

void DeferredRelease::release_all() noexcept {
    if (fork_state::forked_child()) return;
    DeferredRelease* node = queued_.exchange(nullptr, std::memory_order_acquire);
    // Destructors of what is released (a buffer's cuMemFree) may record errors; the caller's
    // last error is not theirs to change.
    PreserveLastError keep;
    while (node != nullptr) {
        DeferredRelease* next = node->next_;
        delete node;
        node = next;
    }
}

}  // namespace cuabi
