// The one place errors are built. Every failure goes through fail(): it records the status, a
// message naming the values involved and a "Fix: ..." sentence in thread-local storage, and
// returns the status so call sites read `return fail(...)`.
#pragma once

#include <cstddef>
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

// The driver layer's account of a driver-caused failure (driver/driver_log.hpp): given the
// CUresult and the message built so far (what failed, without the fix), returns what the driver
// itself logged about it, or "" when it logged nothing or keeps no log. Installed once when the
// driver loads; fail_with_cu_result() consults it, so only failures pay for it.
using DriverLogReader = std::string (*)(int32_t cu_result, const std::string& what);
void install_driver_log_reader(DriverLogReader reader) noexcept;

// Re-raises a failure recorded earlier (e.g. the cached outcome of loading the driver) with its
// original message.
Status fail_again(Status status, const std::string& message, int32_t cu_result = 0);

// Recording never throws: when the host cannot allocate the message, the thread's last error
// becomes a fixed text that says so (and the status is returned as usual).
//
struct LastError;  // the thread's last error (error.cpp)

// Keeps the thread's last error as it was for the life of the object, whatever is recorded
// meanwhile: destroys report nothing, so the message of an earlier failure must survive them.
// Copy on write, since most scopes record nothing (every destroy has one): the object only
// registers as the thread's innermost keeper; the first record in its scope has it save the last
// error (moving the message out, so it allocates nothing), and only then does it restore anything.
// Nested keepers need no more: until the innermost saves, the error is still what it was when the
// outer ones began, and the innermost puts back what it saved before an outer one writes again.
class PreserveLastError {
public:
    PreserveLastError() noexcept;
    ~PreserveLastError();
    PreserveLastError(const PreserveLastError&) = delete;
    PreserveLastError& operator=(const PreserveLastError&) = delete;

private:
    friend struct LastError;
    void save() noexcept;  // before the first change in this scope

    LastError& error_;
    PreserveLastError* const outer_;  // the keeper this one is nested in, or NULL
    bool saved_ = false;
    std::string message_;
    const char* fixed_message_ = nullptr;
    int32_t cu_result_ = 0;
    int32_t nvrtc_result_ = 0;
};

// Caller text for a message, bounded: at most `limit` bytes (cut at a UTF-8 character boundary),
// then "…(N bytes)" (N the whole length) when longer, so that a caller-sized string never makes a
// message (and its allocation) as large as itself.
constexpr size_t kQuoteLimit = 200;
std::string bounded(const char* text, size_t limit = kQuoteLimit);

// The thread's last message, status and underlying results.
const char* last_error_message();
int32_t last_cu_result();
int32_t last_nvrtc_result();

// printf into a std::string (for building parts of messages).
std::string format(const char* format_string, ...) __attribute__((format(printf, 1, 2)));

}  // namespace cuabi
