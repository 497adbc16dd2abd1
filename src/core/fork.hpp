// Life after fork().
//
// A fork() child gets a copy of its parent's memory and only the thread that called fork(): the
// parent's CUDA contexts are unusable there (CUDA does not support a child using the CUDA state of
// its parent), the NVRTC worker's pipes are shared with the parent, and any lock another thread of
// the parent held at that instant stays held forever. So in the child of a process that had used
// cuabi, every call that needs the GPU, NVRTC or a cache returns CUABI_ERROR_FORKED without
// touching any of that state, every handle from the parent is refused (FORKED too), and destroys
// return without doing anything (the objects are left alone: destroying them would call into the
// driver). A process that forks before its first cuabi call is not affected: its child loads the
// driver and compiles like any other process.
//
// Costs nothing on the launch path: GPU handles are disowned in the child (handle_table.hpp), so a
// pin fails and the general path reports FORKED; only entry points without a handle ask
// forked_child() themselves.
#pragma once

#include <atomic>

#include "core/error.hpp"

namespace cuabi {
namespace fork_state {

namespace detail {
extern std::atomic<bool> forked_child;
extern std::atomic<bool> used;
}  // namespace detail

// True in a fork() child of a process that had used cuabi.
inline bool forked_child() noexcept { return detail::forked_child.load(std::memory_order_relaxed); }

// Marks the process as using cuabi (creating handles, loading the driver, compiling, opening the
// cache): its fork() children then refuse such work.
inline void note_use() noexcept {
    if (!detail::used.load(std::memory_order_relaxed)) detail::used.store(true, std::memory_order_relaxed);
}

// FORKED with a message naming `subject` (an entry point, or the handle that was refused).
Status refuse(const char* subject);

// For entry points that reach process-wide state without a handle (driver, NVRTC, caches): FORKED
// in a forked child, else success after marking the process as using cuabi.
inline Status enter(const char* function) {
    if (forked_child()) return refuse(function);
    note_use();
    return CUABI_SUCCESS;
}

}  // namespace fork_state
}  // namespace cuabi
