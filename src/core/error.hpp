// The one place errors are built. Every failure goes through fail(): it records the status, a
// message naming the values involved and a "Fix: ..." sentence in thread-local storage, and
// returns the status so call sites read `return fail(...)`.
#pragma once

#include <cstdint>
#include <string>

#include "cuabi/cuabi.h"

namespace cuabi {

using Status = cuabi_status;

// printf-style: fail(status, fix, "block (%u,%u,%u) has ...", x, y, z).
// The message becomes "<what> Fix: <fix>" (a missing final '.' on <what> is added).
// The fail functions are marked cold: the compiler then moves every branch that ends in one out of
// the way of the code around it, so the paths that succeed stay dense in the instruction cache.
Status fail(Status status, const char* fix, const char* what_format, ...)
    __attribute__((cold, format(printf, 3, 4)));

// Like fail(), and also records the CUresult / nvrtcResult behind the failure so that
// cuabi_last_cu_result() / cuabi_last_nvrtc_result() return it.
Status fail_with_cu_result(Status status, int32_t cu_result, const char* fix, const char* what_format, ...)
    __attribute__((cold, format(printf, 4, 5)));
Status fail_with_nvrtc_result(Status status, int32_t nvrtc_result, const char* fix, const char* what_format, ...)
    __attribute__((cold, format(printf, 4, 5)));

// Re-raises a failure recorded earlier (e.g. the cached outcome of loading the driver) with its
// original message.
Status fail_again(Status status, const std::string& message, int32_t cu_result = 0);

// The thread's last message, status and underlying results.
const char* last_error_message();
int32_t last_cu_result();
int32_t last_nvrtc_result();

// printf into a std::string (for building parts of messages).
std::string format(const char* format_string, ...) __attribute__((format(printf, 1, 2)));

}  // namespace cuabi
