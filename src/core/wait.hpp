// Waiting for another thread without burning a core: spin a little (most waits in cuabi end within
// a microsecond), then sleep in the kernel until the other thread says the word changed.
//
// The word is a std::atomic<uint32_t> (a Linux futex): the waiter reads it, re-checks its
// condition, and sleeps only while the word still holds what it read; the thread that ends the
// wait changes the word first and wakes second, so no wake-up is lost between check and sleep.
#pragma once

#include <atomic>
#include <cstdint>

namespace cuabi {

// Sleeps while `word` holds `expected` (returns at once when it does not). May return early
// (spuriously, or after `timeout_ns` when non-zero): callers re-check their condition in a loop.
void wait_while_equal(const std::atomic<uint32_t>& word, uint32_t expected, uint64_t timeout_ns = 0) noexcept;

// Wakes every thread sleeping on `word` (after the caller changed it).
void wake_all(const std::atomic<uint32_t>& word) noexcept;
void wake_one(const std::atomic<uint32_t>& word) noexcept;

// Bounded spinning before a sleep: spin() is true for the first kSpinRounds calls, each of which
// pauses the CPU briefly (then yields), and false after, when the caller should sleep instead.
class SpinBudget {
public:
    bool spin() noexcept;

private:
    static constexpr unsigned kSpinRounds = 128;  // a few microseconds
    unsigned rounds_ = 0;
};

}  // namespace cuabi
