// The guard that serializes one graph's executable (graph/exclusive.hpp) really excludes.
#include <gtest/gtest.h>

#include <mutex>
#include <thread>
#include <vector>

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

}  // namespace
