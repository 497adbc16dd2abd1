// The guard around every entry point: no C++ exception ever leaves a cuabi call.
//
// Each CUABI_API definition is a function-try-block,
//     CUABI_API cuabi_status cuabi_x(...) try { ... } catch (...) { return guard::failed(__func__); }
// (tests/unit/api_guard_lint_test.cpp checks that every one is), which costs nothing until
// something throws: the handler turns the exception into a status and a message. Destroys and
// other functions that cannot report swallow it with guard::swallowed(), leaving the thread's last
// error as it was.
//
// One thing is not an exception to turn into a status: glibc's forced unwinding
// (abi::__forced_unwind) of a thread that pthread_cancel() or pthread_exit() ends inside a call.
// Swallowing it aborts the process ("exception not rethrown"); both helpers rethrow it, so the
// thread ends as asked, its destructors releasing what the call held on the way out.
#pragma once

#include "core/error.hpp"

namespace cuabi {
namespace guard {

// Call only inside a catch handler: CUABI_ERROR_OUT_OF_HOST_MEMORY for std::bad_alloc (and
// std::length_error, a size too large to allocate), CUABI_ERROR_INTERNAL for anything else, with a
// message naming `function` and, for INTERNAL, what was thrown. Rethrows forced unwinding.
Status failed(const char* function);

// Call only inside a catch handler of a function that cannot report: records nothing.
// Rethrows forced unwinding.
void swallowed();

}  // namespace guard
}  // namespace cuabi
