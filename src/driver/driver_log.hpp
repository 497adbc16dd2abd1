// The driver's error log (CUDA 12.9+) quoted in cuabi's messages.
//
// Since 12.9 the driver keeps a ring of lines about failed calls, e.g.
//   [01:12:56.144][140377359672832][CUDA][E] Returning 2 (CUDA_ERROR_OUT_OF_MEMORY) from cuMemAlloc_v2
// (time, thread as its pthread_t, source, severity, text naming the entry point; some lines carry
// the entry point as a fifth bracketed field instead). After a driver-caused failure cuabi
// reads the lines logged since it last looked (cuLogsDumpToMemory from its own iterator, which
// starts where the log stood when the driver loaded) and quotes the newest line relevant to the
// failure: logged by this thread, by an entry point the message names. The log is read only from
// fail_with_cu_result() (core/error.hpp), so calls that succeed pay nothing; without the cuLogs
// entry points (an older driver) nothing is quoted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "driver/driver_api.hpp"

namespace cuabi {
namespace driver_log {

// Most bytes of a log line quoted in a message.
constexpr size_t kQuoteLimit = 512;

// Called once by the driver loader after resolving the entry points: remembers where the log
// stands now and installs the reader into fail_with_cu_result(). Does nothing without cuLogs*.
void attach(const DriverApi& api) noexcept;

// One parsed line of the log. Fields the line lacks are empty (thread_id 0).
struct Line {
    uint64_t thread_id = 0;
    std::string_view entry_point;  // "cuMemAlloc_v2": the fifth field, or the name after " from "
    std::string_view text;         // after the bracketed header
    std::string_view whole;
};
Line parse_line(std::string_view line);

// The quote for a failure whose message so far is `what`, chosen from `fresh` (lines logged since
// the last read, oldest first, '\n'-separated) and `earlier` (lines read before but not quoted,
// kept in case another thread's failure read them first): the newest line by `thread_id` whose
// entry point `what` names, else the newest line in `fresh` whose entry point `what` names.
// The line's text (prefixed "[entry point] " when the text does not name it), at most kQuoteLimit bytes; "" when no line fits. Pure: for tests.
std::string choose(std::string_view what, std::string_view earlier, std::string_view fresh, uint64_t thread_id);

}  // namespace driver_log
}  // namespace cuabi
