// A stream kept busy by a kernel that spins for a given time, and a thread of the test waiting for
// it inside cuabi_stream_synchronize -- so holding a pin on the stream: the situation of the fork
// and destroy tests.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "graph_test_support.hpp"

inline const char* const kSpinSource = R"(
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
})";

class BusyStreamTest : public GraphTest {
protected:
    void TearDown() override {
        if (waiter_.joinable()) waiter_.join();
        GraphTest::TearDown();
    }

    // Keeps `stream` busy for about `milliseconds` and starts a thread that synchronizes it;
    // returns once that thread is inside the call. Call it in ASSERT_NO_FATAL_FAILURE: a failed
    // launch starts no thread.
    void keep_busy_and_wait_on(cuabi_stream* stream, int milliseconds) {
        cuabi_kernel* spin = kernel(kSpinSource, "spin");
        ASSERT_NE(spin, nullptr);
        long long cycles = static_cast<long long>(info.clock_rate_khz) * milliseconds;
        cuabi_kernel_arg args[] = {{&cycles, sizeof cycles}};
        cuabi_launch_config one = config(1, 1);
        one.stream = stream;
        ASSERT_OK(cuabi_launch(spin, &one, args, 1));
        std::atomic<bool> started{false};
        waiter_ = std::thread([this, stream, &started] {
            started = true;
            synchronized_ = cuabi_stream_synchronize(stream);
        });
        while (!started) std::this_thread::yield();
        std::this_thread::sleep_for(std::chrono::milliseconds(50));  // inside the call by now
    }

    // Joins the waiting thread; its synchronize must have succeeded.
    void join_waiter() {
        ASSERT_TRUE(waiter_.joinable()) << "keep_busy_and_wait_on started no thread";
        waiter_.join();
        EXPECT_OK(synchronized_) << "the waiting thread's cuabi_stream_synchronize";
    }

private:
    std::thread waiter_;
    cuabi_status synchronized_ = CUABI_ERROR_INTERNAL;
};
