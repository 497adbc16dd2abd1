// ShortLock (core/short_lock.hpp), the handle table's lock: mutual exclusion whether a waiter
// spins or sleeps, and a sleeper is always woken. ThreadSanitizer runs these too.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "core/short_lock.hpp"

namespace cuabi {
namespace {

TEST(ShortLock, ThreadsTakingItAtOnceNeverOverlap) {
    ShortLock lock;
    uint64_t counter = 0;  // plain: only the lock orders the increments
    std::atomic<int> inside{0};
    std::atomic<int> overlaps{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t)
        threads.emplace_back([&] {
            for (int i = 0; i < 20000; ++i) {
                std::lock_guard<ShortLock> hold(lock);
                if (inside.fetch_add(1, std::memory_order_relaxed) != 0) overlaps.fetch_add(1);
                ++counter;
                inside.fetch_sub(1, std::memory_order_relaxed);
            }
        });
    for (std::thread& thread : threads) thread.join();
    EXPECT_EQ(overlaps.load(), 0);
    EXPECT_EQ(counter, 8u * 20000u);
}

TEST(ShortLock, WaitersThatFellAsleepAreWokenOneAfterAnother) {
    ShortLock lock;
    lock.lock();
    std::atomic<int> done{0};
    std::vector<std::thread> waiters;
    for (int t = 0; t < 4; ++t)
        waiters.emplace_back([&] {
            lock.lock();
            // Held long enough that the next waiter runs out of spinning and sleeps as well.
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
            done.fetch_add(1);
            lock.unlock();
        });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));  // past every waiter's spinning
    EXPECT_EQ(done.load(), 0);
    lock.unlock();
    for (std::thread& waiter : waiters) waiter.join();
    EXPECT_EQ(done.load(), 4);
    lock.lock();  // free again, and takeable at once
    lock.unlock();
}

}  // namespace
}  // namespace cuabi
