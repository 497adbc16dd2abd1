// CPU time of the calling thread, for tests that prove a wait sleeps instead of spinning.
#pragma once

#include <time.h>

#include <chrono>

namespace test_support {

inline std::chrono::nanoseconds thread_cpu_time() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return std::chrono::seconds(now.tv_sec) + std::chrono::nanoseconds(now.tv_nsec);
}

}  // namespace test_support
