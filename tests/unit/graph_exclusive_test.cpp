// The guard that serializes one graph's executable (graph/exclusive.hpp) really excludes.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu_time.hpp"
#include "graph/exclusive.hpp"

namespace {

TEST(GraphExclusive, ThreadsIncrementingUnderTheGuardLoseNoUpdate) {
    cuabi::graph::Exclusive guard;
    uint64_t counter = 0;  // plain: only the guard protects it (a data race shows under TSan/ASan runs)
    constexpr int kThreads = 4, kRounds = 20000;
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < kRounds; ++i) {
                std::lock_guard<cuabi::graph::Exclusive> lock(guard);
                uint64_t seen = counter;
                if (i % 64 == 0) std::this_thread::yield();  // widen the window a missing exclusion would hit
                counter = seen + 1;
            }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(counter, uint64_t(kThreads) * kRounds);
}

TEST(GraphExclusive, AWaiterSleepsWhileTheHolderTakesMilliseconds) {
    // Re-instantiation after a whole-graph update holds the guard for milliseconds; a thread that
    // replays the same graph meanwhile must wait without burning a core.
    cuabi::graph::Exclusive guard;
    std::atomic<bool> held{false};
    std::thread holder([&] {
        std::lock_guard<cuabi::graph::Exclusive> lock(guard);
        held = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(400));
    });
    while (!held) std::this_thread::yield();
    const auto wall_start = std::chrono::steady_clock::now();
    const auto cpu_start = test_support::thread_cpu_time();
    guard.lock();
    const auto cpu = test_support::thread_cpu_time() - cpu_start;
    const auto wall = std::chrono::steady_clock::now() - wall_start;
    guard.unlock();
    holder.join();
    EXPECT_GE(wall, std::chrono::milliseconds(300)) << "the guard was taken while held";
    EXPECT_LT(cpu, std::chrono::milliseconds(40)) << "the waiter spent CPU";
}

}  // namespace
