#include "core/error.hpp"

#include <atomic>
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace cuabi {

struct LastError {
    std::string message = "no error";     // short enough to need no allocation
    const char* fixed_message = nullptr;  // when set, the message (static text)
    int32_t cu_result = 0;
    int32_t nvrtc_result = 0;
    PreserveLastError* keeper = nullptr;  // the innermost active on this thread, or NULL

    // Every change of the fields above starts here, so that a keeper saves what it must restore.
    LastError& for_writing() noexcept {
        if (keeper != nullptr) keeper->save();
        return *this;
    }
};

namespace {

// What the thread's last error reads when its message could not be allocated.
const char* const kMessageUnallocated =
    "cuabi could not allocate host memory for the message of a failure. Fix: free host memory, then retry the call.";

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

std::atomic<DriverLogReader> driver_log_reader{nullptr};

void end_sentence(std::string* text) {
    if (!text->empty() && text->back() != '.') *text += '.';
}

// Sets the message, or the fixed text when the host cannot allocate it. A driver-caused failure
// (cu_result != 0) quotes what the driver logged about it before the fix.
void set_message(LastError& error, int32_t cu_result, const char* fix, const char* what_format, va_list args) noexcept {
    try {
        std::string message = vformat(what_format, args);
        DriverLogReader reader = driver_log_reader.load(std::memory_order_acquire);
        std::string driver_log = cu_result != 0 && reader != nullptr ? reader(cu_result, message) : std::string();
        end_sentence(&message);
        if (!driver_log.empty()) {
            message += " Driver log: ";
            message += driver_log;
            end_sentence(&message);
        }
        message += " Fix: ";
        message += fix;
        error.message.swap(message);
        error.fixed_message = nullptr;
    } catch (...) {
        error.fixed_message = kMessageUnallocated;
    }
}

Status record(Status status, int32_t cu_result, int32_t nvrtc_result, const char* fix, const char* what_format,
              va_list args) noexcept {
    LastError& error = last_error().for_writing();
    set_message(error, cu_result, fix, what_format, args);
    error.cu_result = cu_result;
    error.nvrtc_result = nvrtc_result;
    return status;
}

}  // namespace

void install_driver_log_reader(DriverLogReader reader) noexcept {
    driver_log_reader.store(reader, std::memory_order_release);
}

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
    LastError& error = last_error().for_writing();
    try {
        error.message = message;
        error.fixed_message = nullptr;
    } catch (...) {
        error.fixed_message = kMessageUnallocated;
    }
    error.cu_result = cu_result;
    error.nvrtc_result = 0;
    return status;
}

const char* last_error_message() {
    const LastError& error = last_error();
    return error.fixed_message != nullptr ? error.fixed_message : error.message.c_str();
}
int32_t last_cu_result() { return last_error().cu_result; }
int32_t last_nvrtc_result() { return last_error().nvrtc_result; }

PreserveLastError::PreserveLastError() noexcept : error_(last_error()), outer_(error_.keeper) { error_.keeper = this; }

void PreserveLastError::save() noexcept {
    if (saved_) return;
    message_.swap(error_.message);
    fixed_message_ = error_.fixed_message;
    cu_result_ = error_.cu_result;
    nvrtc_result_ = error_.nvrtc_result;
    saved_ = true;
}

PreserveLastError::~PreserveLastError() {
    if (saved_) {
        error_.message.swap(message_);
        error_.fixed_message = fixed_message_;
        error_.cu_result = cu_result_;
        error_.nvrtc_result = nvrtc_result_;
    }
    error_.keeper = outer_;
}

std::string bounded(const char* text, size_t limit) {
    if (text == nullptr) return "(null)";
    const size_t length = std::strlen(text);
    if (length <= limit) return text;
    size_t cut = limit;
    // Back up over UTF-8 continuation bytes (10xxxxxx) so no character is split.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
    return std::string(text, cut) + format("\xe2\x80\xa6(%zu bytes)", length);
}

std::string format(const char* format_string, ...) {
    va_list args;
    va_start(args, format_string);
    std::string result = vformat(format_string, args);
    va_end(args);
    return result;
}

}  // namespace cuabi
