// A compile's cancel token: set from any thread, it ends the compiles that carry it. A compile in
// the worker is ended by killing the worker (NVRTC has no way to stop a running compile), so the
// cancel returns as soon as the kernel has delivered SIGKILL; a compile waiting for a worker
// slot, or for another thread's compile of the same key, stops waiting. NVRTC running in this
// process (CUABI_COMPILE_IN_PROCESS) cannot be stopped: the cancel then takes effect only before
// it starts.
//
// Killing is safe against pid reuse: a worker is enlisted while its compile thread holds it
// unreaped and discharged before that thread reaps or gives it back, and cancel() kills under the
// same lock.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "core/error.hpp"

namespace cuabi {

class CompileCancel {
public:
    void cancel();  // thread-safe; idempotent
    bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }

    // The worker `pid` now runs a compile that carries this token. False when the token is
    // already cancelled: the caller must not start the compile.
    bool enlist(pid_t pid);
    // The compile on `pid` ended (answered or not). True when the token was cancelled while it
    // was enlisted: the worker may have been killed and must not be reused.
    bool discharge(pid_t pid);

private:
    std::atomic<bool> cancelled_{false};
    std::mutex mutex_;
    std::vector<pid_t> workers_;
};

// CUABI_ERROR_CANCELLED for the compile of `program_name`, `where` saying what it was doing
// ("NVRTC was compiling it in the worker, which was killed").
Status fail_cancelled(const char* program_name, const char* where);

// fail_cancelled()'s message, for a request whose failure is recorded where it will be read.
std::string cancelled_message(const char* program_name, const char* where);

}  // namespace cuabi
