// Allocation-failure injection: this directory's test programs replace the global operator new
// (failing_new.cpp) with one that passes every allocation to malloc, except that, when armed on a
// thread, the Nth allocation that thread makes fails (std::bad_alloc, or nullptr for the nothrow
// forms). cuabi's own code and the C++ library it uses allocate through operator new, so running
// a scenario for N = 1, 2, ... makes every allocation site in it fail in turn. NVRTC and the CUDA
// driver allocate with malloc and are not affected.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "cuabi/cuabi.h"

namespace failing_new {

// Makes the `nth` allocation of the calling thread from now on fail.
void arm(long nth);
// Disarms; true when the armed allocation was reached (and failed).
bool disarm();
// For set-up and checks inside a scenario: allocations between pause() and resume() neither count
// nor fail.
void pause();
void resume();

// Runs `scenario` (returning a cuabi_status, and releasing whatever it created) with allocation
// 1, 2, ... of the calling thread failing, until a run makes fewer allocations than the one armed.
// Every run must return: a run whose failed allocation made it fail reports a status with a
// message ending in a fix (CUABI_ERROR_OUT_OF_HOST_MEMORY, unless `other_status` names another
// status the scenario may report instead); the last run must succeed. Returns the number of
// allocation sites tried.
template <typename Scenario>
long fail_each_allocation(Scenario&& scenario, long limit, cuabi_status other_status = CUABI_ERROR_OUT_OF_HOST_MEMORY) {
    for (long nth = 1; nth <= limit; ++nth) {
        arm(nth);
        const cuabi_status status = scenario();
        const bool fired = disarm();
        const std::string message = cuabi_last_error_message();
        if (!fired) {
            EXPECT_EQ(status, CUABI_SUCCESS)
                << "without a failed allocation: " << cuabi_status_name(status) << ": " << message;
            return nth - 1;
        }
        if (status == CUABI_SUCCESS) continue;  // the failure was absorbed (a cache that could not store)
        EXPECT_TRUE(status == CUABI_ERROR_OUT_OF_HOST_MEMORY || status == other_status)
            << "allocation " << nth << ": " << cuabi_status_name(status) << ": " << message;
        EXPECT_NE(message.find(" Fix: "), std::string::npos) << "allocation " << nth << ": " << message;
    }
    ADD_FAILURE() << "the scenario made more than " << limit << " allocations";
    return limit;
}

}  // namespace failing_new
