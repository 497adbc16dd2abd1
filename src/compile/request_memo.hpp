// The keys of recent compile requests, so that compiling the same source with the
// same options again -- what a program does that compiles where it launches, or per call -- costs
// one comparison with the remembered request instead of hashing the source and canonicalizing
// every option into a key again.
//
// A memo entry is a pure function of what it compares: the source bytes, every compile option
// (strings compared by content, not address), the device's compute capability, the identity of
// the NVRTC file (it changes when NVRTC is replaced), and whether NVRTC's facts were known when the
// target was resolved. It remembers the target and the key only; whether the key is still in the
// cache is asked of the cache each time, so clearing, eviction and reconfiguration need not know
// about it.
//
// Each thread looks first at its own recent requests, without a lock; on a miss, at the process's
// recent requests (one short lock), so a thread's first compile of a request another thread made
// needs no key either. Entries are immutable and shared by reference between the two. A request
// whose source and option strings pass kMaxRememberedBytes is not remembered, which bounds the
// memory of the whole memo (kSharedEntries entries plus what threads still refer to).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "cache/cache_key.hpp"
#include "compile/compile_options.hpp"
#include "compile/target.hpp"

namespace cuabi {
struct DeviceInfo;

namespace request_memo {

// Entries per thread and per process, and the most source and option bytes one entry keeps.
constexpr size_t kEntries = 4;
constexpr size_t kSharedEntries = 16;
constexpr size_t kMaxRememberedBytes = 64 * 1024;

// What decided the key besides the request itself.
struct Circumstances {
    const DeviceInfo* device = nullptr;  // NULL: offline
    uint64_t nvrtc_identity = 0;
    const void* nvrtc_facts = nullptr;   // NVRTC's facts when known (they can change the target)
};

// The target and key remembered for this request, or false. Thread-safe. `source` is NUL-terminated and read
// no further than its terminator (one pass: the comparison also measures it); on a hit
// `*out_source` is a view of it with its length. `options` need not be checked
// (check_compile_options): options that would fail it match no remembered request, and what
// they leave NULL is never read.
bool find(const char* source, const CompileOptions& options, const Circumstances& circumstances,
          std::string_view* out_source, Target* out_target, cache::Key* out_key);

// Remembers `target` and `key` for this request, whose options passed check_compile_options (a
// hit stands for that check), in this thread's memo (replacing its least
// recently used entry) and the process's (round robin). Allocates; a failed allocation only means
// the request is not remembered. Thread-safe.
void remember(std::string_view source, const CompileOptions& options, const Circumstances& circumstances,
              const Target& target, const cache::Key& key) noexcept;

}  // namespace request_memo
}  // namespace cuabi
