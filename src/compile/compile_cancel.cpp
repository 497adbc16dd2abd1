#include "compile/compile_cancel.hpp"

#include <signal.h>

#include <algorithm>

#include "compile/compile_log.hpp"

namespace cuabi {

void CompileCancel::cancel() {
    std::lock_guard<std::mutex> lock(mutex_);
    cancelled_.store(true, std::memory_order_release);
    for (pid_t pid : workers_) kill(pid, SIGKILL);
}

bool CompileCancel::enlist(pid_t pid) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (cancelled()) return false;
    workers_.push_back(pid);
    return true;
}

bool CompileCancel::discharge(pid_t pid) {
    std::lock_guard<std::mutex> lock(mutex_);
    workers_.erase(std::remove(workers_.begin(), workers_.end(), pid), workers_.end());
    return cancelled();
}

std::string cancelled_message(const char* program_name, const char* where) {
    return format("the compile of '%s' was cancelled (cuabi_compile_batch_cancel) while %s. Fix: nothing is wrong "
                  "with the request: compile it again (in a new batch) when its module is wanted",
                  program_name, where);
}

Status fail_cancelled(const char* program_name, const char* where) {
    return fail_as_recorded(CUABI_ERROR_CANCELLED, 0, cancelled_message(program_name, where));
}

}  // namespace cuabi
