#include "core/error.hpp"

#include <cstdarg>
#include <cstdio>

namespace cuabi {
namespace {

struct LastError {
    std::string message = "no error";
    int32_t cu_result = 0;
    int32_t nvrtc_result = 0;
};

LastError& last_error() {
    thread_local LastError error;
    return error;
}

std::string vformat(const char* format_string, va_list args) {
    va_list copy;
    va_copy(copy, args);
    char small[512];
    int needed = std::vsnprintf(small, sizeof small, format_string, copy);
    va_end(copy);
    if (needed < 0) return format_string;
    if (static_cast<size_t>(needed) < sizeof small) return std::string(small, static_cast<size_t>(needed));
    std::string big(static_cast<size_t>(needed) + 1, '\0');
    std::vsnprintf(&big[0], big.size(), format_string, args);
    big.resize(static_cast<size_t>(needed));
    return big;
}

Status record(Status status, int32_t cu_result, int32_t nvrtc_result, const char* fix, const char* what_format,
              va_list args) {
    LastError& error = last_error();
    std::string message = vformat(what_format, args);
    if (!message.empty() && message.back() != '.') message += '.';
    message += " Fix: ";
    message += fix;
    error.message = std::move(message);
    error.cu_result = cu_result;
    error.nvrtc_result = nvrtc_result;
    return status;
}

}  // namespace

Status fail(Status status, const char* fix, const char* what_format, ...) {
    va_list args;
    va_start(args, what_format);
    record(status, 0, 0, fix, what_format, args);
    va_end(args);
    return status;
}

Status fail_with_cu_result(Status status, int32_t cu_result, const char* fix, const char* what_format, ...) {
    va_list args;
    va_start(args, what_format);
    record(status, cu_result, 0, fix, what_format, args);
    va_end(args);
    return status;
}

Status fail_with_nvrtc_result(Status status, int32_t nvrtc_result, const char* fix, const char* what_format, ...) {
    va_list args;
    va_start(args, what_format);
    record(status, 0, nvrtc_result, fix, what_format, args);
    va_end(args);
    return status;
}

Status fail_again(Status status, const std::string& message, int32_t cu_result) {
    LastError& error = last_error();
    error.message = message;
    error.cu_result = cu_result;
    error.nvrtc_result = 0;
    return status;
}

const char* last_error_message() { return last_error().message.c_str(); }
int32_t last_cu_result() { return last_error().cu_result; }
int32_t last_nvrtc_result() { return last_error().nvrtc_result; }

std::string format(const char* format_string, ...) {
    va_list args;
    va_start(args, format_string);
    std::string result = vformat(format_string, args);
    va_end(args);
    return result;
}

}  // namespace cuabi
