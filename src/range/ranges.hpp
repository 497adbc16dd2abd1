// NVTX v3 ranges around cuabi's own phases (DESIGN §8).
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

// Pushes the phase's range on construction and pops it on destruction (same thread).
// `detail` (may be NULL) is read only during the constructor.
class Scope {
public:
    explicit Scope(Phase phase) noexcept;
    Scope(Phase phase, const char* detail) noexcept;
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

private:
    bool active_;
};

// False when CUABI_NVTX=0 (or off/false/no) was set when the first range was made.
bool enabled() noexcept;

// True when ranges are enabled and a profiler (an NVTX tool) is attached to this process.
bool tool_attached() noexcept;

}  // namespace range
}  // namespace cuabi
