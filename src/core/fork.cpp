#include "core/fork.hpp"

#include <pthread.h>

#include "core/handle_table.hpp"

namespace cuabi {
namespace fork_state {

namespace detail {
std::atomic<bool> forked_child{false};
std::atomic<bool> used{false};
}  // namespace detail

namespace {

// The handle table's lock is the one lock a child may still take (its destroys and the checks of
// its handles go through the table), so it is held across fork(): the child then gets it free.
void before_fork() { HandleTable::instance().lock_for_fork(); }
void in_parent_after_fork() { HandleTable::instance().unlock_after_fork(); }
void in_child_after_fork() {
    HandleTable::instance().unlock_after_fork();
    if (!detail::used.load(std::memory_order_relaxed)) return;
    detail::forked_child.store(true, std::memory_order_relaxed);
    HandleTable::instance().disown_after_fork();
}

// Registered when the library is loaded (and unregistered by the C library when it is unloaded).
struct Registration {
    Registration() { pthread_atfork(before_fork, in_parent_after_fork, in_child_after_fork); }
} const registration;

}  // namespace

Status refuse(const char* subject) {
    return fail(CUABI_ERROR_FORKED,
                "use cuabi in the parent process only, or start the child with exec (posix_spawn, or Python "
                "multiprocessing's \"spawn\" or \"forkserver\" start method) so that it loads cuabi afresh",
                "%s: this process is a fork() child of a process that had used cuabi; it inherits none of the "
                "parent's CUDA state, NVRTC worker or threads, and locks that the parent's other threads held at "
                "fork() stay held, so cuabi does no GPU, compile or cache work here",
                subject);
}

}  // namespace fork_state
}  // namespace cuabi
