// A tiny lock-free cache of occupancy answers for one kernel, keyed by (threads per block,
// dynamic shared memory bytes).
//
// The driver's occupancy calculator costs microseconds; a cooperative or cluster launch needs its
// answer every time. Each entry is one 64-bit word holding key and value together
//   bits 63..48 threads per block, bits 47..16 shared memory bytes, bits 15..0 value + 1
// so a reader sees either a whole entry or none, with no lock and no allocation. Answers for a key
// never change, so concurrent writers racing for a slot are harmless: the loser's answer is simply
// recomputed later. 0 marks an empty word (value + 1 is never 0).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace cuabi {
namespace launch {

class OccupancyCache {
public:
    static constexpr size_t kEntries = 16;
    static constexpr size_t kProbe = 4;  // slots looked at per key

    // Whether (threads, shared_bytes) -> value fits an entry; others are not cached.
    static bool cacheable(uint32_t threads, uint32_t value) { return threads <= 0xFFFFu && value < 0xFFFFu; }

    bool lookup(uint32_t threads, uint32_t shared_bytes, uint32_t* out_value) const {
        const uint64_t key = key_of(threads, shared_bytes);
        const size_t home = home_of(key);
        for (size_t i = 0; i < kProbe; ++i) {
            uint64_t word = entries_[(home + i) % kEntries].load(std::memory_order_relaxed);
            if (word == 0) return false;
            if ((word & ~uint64_t{0xFFFF}) == key) {
                *out_value = static_cast<uint32_t>(word & 0xFFFF) - 1;
                return true;
            }
        }
        return false;
    }

    void store(uint32_t threads, uint32_t shared_bytes, uint32_t value) {
        if (!cacheable(threads, value)) return;
        const uint64_t key = key_of(threads, shared_bytes);
        const uint64_t word = key | (value + 1);
        const size_t home = home_of(key);
        for (size_t i = 0; i < kProbe; ++i) {
            std::atomic<uint64_t>& slot = entries_[(home + i) % kEntries];
            uint64_t expected = 0;
            if (slot.compare_exchange_strong(expected, word, std::memory_order_relaxed)) return;
            if ((expected & ~uint64_t{0xFFFF}) == key) return;  // someone stored it already
        }
        // Every probed slot holds another key: replace the home slot. Lookups of the evicted key
        // miss and recompute; the probe sequence stays intact because no slot becomes empty.
        entries_[home].store(word, std::memory_order_relaxed);
    }

    // Forgets every answer: a kernel attribute changed what the calculator says (the setter's
    // racing launches may still see an old answer, as the header allows).
    void clear() {
        for (std::atomic<uint64_t>& entry : entries_) entry.store(0, std::memory_order_relaxed);
    }

private:
    static uint64_t key_of(uint32_t threads, uint32_t shared_bytes) {
        return (uint64_t{threads} << 48) | (uint64_t{shared_bytes} << 16);
    }
    static size_t home_of(uint64_t key) {
        // Fibonacci hashing spreads the few distinct keys a program uses over the slots.
        return static_cast<size_t>((key * 0x9E3779B97F4A7C15ull) >> 60) % kEntries;
    }

    std::atomic<uint64_t> entries_[kEntries] = {};
};

}  // namespace launch
}  // namespace cuabi
