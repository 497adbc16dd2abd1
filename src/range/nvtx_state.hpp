// The process's NVTX state as cuabi sees it: whether ranges are on, whether a tool is attached,
// and the "cuabi" domain with one registered string and one named category per phase.
//
// Made once, at the first range (or query). CUABI_NVTX is read then and never again, and NVTX
// itself looks for a tool (NVTX_INJECTION64_PATH, which Nsight sets) at its first call: a process
// that starts without a profiler never gets one, so `tool` never changes afterwards either.
#pragma once

#include <nvtx3/nvToolsExt.h>

#include "core/error.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace range {

struct NvtxState {
    bool on = true;     // CUABI_NVTX is not 0/off/false/no
    bool tool = false;  // on, and an NVTX tool accepted the "cuabi" domain
    nvtxDomainHandle_t domain = nullptr;
    nvtxStringHandle_t names[static_cast<size_t>(Phase::Count)] = {};
};

const NvtxState& nvtx_state() noexcept;

// The NVTX domain called `name` (NULL or "cuabi": cuabi's own), created at its first use and
// cached for the life of the process. `name` must already be checked (range/text_check.hpp).
// Fails with CUABI_ERROR_RANGE when the process already uses kMaxUserDomains other domains.
// Without a tool attached there is nothing to create and *out_domain is NULL.
constexpr size_t kMaxUserDomains = 256;
Status domain_for(const char* name, nvtxDomainHandle_t* out_domain);

}  // namespace range
}  // namespace cuabi
