#include "range/nvtx_state.hpp"

#include <strings.h>

#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <new>
#include <mutex>
#include <shared_mutex>
#include <string>

#include "core/environment.hpp"
#include "range/catalog.hpp"

namespace cuabi {
namespace range {
namespace {

// CUABI_NVTX: 0, off, false or no switch ranges off; unset, empty, 1, on, true or yes leave them on.
// Anything else leaves them on too, and is said once as an environment problem (a warning: no
// call fails over a profiling switch).
bool switched_off(const char* setting) {
    if (setting == nullptr || *setting == '\0') return false;
    for (const char* off : {"0", "off", "false", "no"})
        if (strcasecmp(setting, off) == 0) return true;
    for (const char* on : {"1", "on", "true", "yes"})
        if (strcasecmp(setting, on) == 0) return false;
    try {  // read inside a noexcept function: without memory the problem goes unsaid, ranges stay on
        record_environment_problem(format("CUABI_NVTX='%s' is neither on (1, on, true, yes) nor off (0, off, false, "
                                          "no); ranges stay on",
                                          bounded(setting, 40).c_str()));
    } catch (const std::bad_alloc&) {
    }
    return false;
}

NvtxState* make_state() {
    auto* state = new (std::nothrow) NvtxState();
    if (state == nullptr) {  // no memory at the first range: run without ranges rather than abort
        static NvtxState off;
        off.on = false;
        return &off;
    }
    state->on = !switched_off(std::getenv("CUABI_NVTX"));
    if (!state->on) return state;
    // The first NVTX call loads the tool, if any. Without one every NVTX function is a no-op that
    // returns NULL, so a NULL domain is how we know nobody is listening.
    state->domain = nvtxDomainCreateA("cuabi");
    state->tool = state->domain != nullptr;
    if (!state->tool) return state;
    for (size_t i = 0; i < static_cast<size_t>(Phase::Count); ++i) {
        const char* name = catalog_entry(static_cast<Phase>(i)).name;
        state->names[i] = nvtxDomainRegisterStringA(state->domain, name);
        // Categories let a profiler group a phase's ranges even when their messages carry a detail.
        nvtxDomainNameCategoryA(state->domain, static_cast<uint32_t>(i) + 1, name);
    }
    return state;
}

// Named even without a tool (handle NULL then), so that the limit below holds the same way
// whether or not a profiler is attached.
struct UserDomains {
    std::shared_mutex mutex;
    std::map<std::string, nvtxDomainHandle_t, std::less<>> by_name;  // less<>: finds a char* without a copy
};

UserDomains& user_domains() {
    static UserDomains* domains = new UserDomains();  // never destroyed: ranges may end during exit
    return *domains;
}

}  // namespace

const NvtxState& nvtx_state() noexcept {
    static const NvtxState* state = make_state();  // never destroyed: ranges may close during exit
    return *state;
}

Status domain_for(const char* name, nvtxDomainHandle_t* out_domain) {
    const NvtxState& state = nvtx_state();
    if (name == nullptr || std::strcmp(name, "cuabi") == 0) {
        *out_domain = state.domain;
        return CUABI_SUCCESS;
    }
    UserDomains& domains = user_domains();
    {
        std::shared_lock<std::shared_mutex> reading(domains.mutex);
        auto found = domains.by_name.find(name);
        if (found != domains.by_name.end()) {
            *out_domain = found->second;
            return CUABI_SUCCESS;
        }
    }
    std::unique_lock<std::shared_mutex> writing(domains.mutex);
    auto found = domains.by_name.find(name);
    if (found != domains.by_name.end()) {
        *out_domain = found->second;
        return CUABI_SUCCESS;
    }
    if (domains.by_name.size() >= kMaxUserDomains)
        return fail(CUABI_ERROR_RANGE, "use a few fixed domain names and put the variable part in the range name",
                    "domain '%s' would make %zu named NVTX domains in this process; cuabi allows %zu, because "
                    "NVTX domains live until the process exits",
                    name, domains.by_name.size() + 1, kMaxUserDomains);
    nvtxDomainHandle_t domain = state.tool ? nvtxDomainCreateA(name) : nullptr;
    try {
        domains.by_name.emplace(name, domain);
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "no memory to remember domain '%s'", name);
    }
    *out_domain = domain;
    return CUABI_SUCCESS;
}

}  // namespace range
}  // namespace cuabi
