// NVTX v3 ranges around cuabi's own phases (DESIGN §8).
//
// Usage on any path, hot ones included:   range::Scope scope(range::Phase::Launch);
// or with a payload shown in the profiler: range::Scope scope(range::Phase::Compile, kernel_name);
// With no profiler attached NVTX v3 costs a pointer check per push/pop; CUABI_NVTX=0 switches the
// ranges off entirely. Every phase is listed in the catalog (range/catalog.cpp) with its public
// name ("cuabi.compile") and a description; add a phase there when you add one here.
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
    Count
};

// Pushes the phase's range on construction and pops it on destruction (same thread).
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

// False when CUABI_NVTX=0 was set at start-up.
bool enabled() noexcept;

}  // namespace range
}  // namespace cuabi
