// NVTX v3 ranges around cuabi's own phases.
//
// Usage on any path, hot ones included:   range::Scope scope(range::Phase::Launch);
// or with a detail shown in the profiler: range::Scope scope(range::Phase::Launch, kernel_name);
//
// Cost: when no profiler is attached a Scope is one load of a flag that never changes after the
// first range (NVTX looks for a tool once, at its first call; no tool then means none for the
// life of the process). The detail is formatted into the message ("cuabi.launch: saxpy") only
// when a tool is attached. CUABI_NVTX=0 switches the ranges off entirely.
//
// Every phase is listed in the catalog (range/catalog.cpp) with its public name ("cuabi.compile")
// and a description. To add a phase: append it here just before Count (never reorder: the
// category numbers profilers show are the enum values + 1) and add its catalog entry.
#pragma once

#include <atomic>
#include <cstdint>

namespace cuabi {
namespace range {

enum class Phase : uint16_t {
    Compile,            // NVRTC compilation of one program
    CacheLookupMemory,  // in-memory cache lookup
    CacheLookupDisk,    // on-disk cache lookup (read + verify)
    CacheStore,         // on-disk cache store (write + publish)
    ModuleLoad,         // loading an image into a context
    Launch,             // validated kernel launch
    GraphCapture,       // stream capture into a graph
    GraphInstantiate,   // graph instantiation
    GraphUpdate,        // executable-graph update (node or whole graph)
    GraphLaunch,        // graph replay
    CacheEvict,         // on-disk cache eviction down to the size cap
    GraphUpload,        // uploading an executable graph to the device ahead of its first launch
    DriverLoad,         // loading libcuda and cuInit (first use in a process)
    Count
};

// False when CUABI_NVTX=0 (or off/false/no) was set when the first range was made.
bool enabled() noexcept;

namespace detail {
// -1 until the NVTX state is made, then 1 with a tool attached and 0 without.
extern std::atomic<int8_t> attached;
bool resolve_attached() noexcept;  // makes the NVTX state, sets `attached`, returns it
void push(Phase phase, const char* detail) noexcept;
void pop() noexcept;
}  // namespace detail

// True when ranges are enabled and a profiler (an NVTX tool) is attached to this process. Inline,
// for the hot paths: after the first call it is one relaxed load of a flag that never changes.
inline bool tool_attached() noexcept {
    int8_t attached = detail::attached.load(std::memory_order_relaxed);
    return attached >= 0 ? attached != 0 : detail::resolve_attached();
}

// Pushes the phase's range on construction and pops it on destruction (same thread).
// `detail_text` (may be NULL) is read only during the constructor.
class Scope {
public:
    explicit Scope(Phase phase) noexcept : active_(tool_attached()) {
        if (active_) detail::push(phase, nullptr);
    }
    Scope(Phase phase, const char* detail_text) noexcept : active_(tool_attached()) {
        if (active_) detail::push(phase, detail_text);
    }
    ~Scope() {
        if (active_) detail::pop();
    }
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    bool active_;
};

}  // namespace range
}  // namespace cuabi
