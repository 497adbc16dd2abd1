#include <nvtx3/nvToolsExt.h>

#include <cstdlib>
#include <cstring>

#include "range/catalog.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace range {
namespace {

// The domain and one registered string per phase, made once. Registered strings let a profiler
// show the name without copying it on every push.
struct Domain {
    nvtxDomainHandle_t handle = nullptr;
    nvtxStringHandle_t names[static_cast<size_t>(Phase::Count)] = {};
    bool on = true;

    Domain() {
        const char* setting = std::getenv("CUABI_NVTX");
        on = !(setting != nullptr && std::strcmp(setting, "0") == 0);
        if (!on) return;
        handle = nvtxDomainCreateA("cuabi");
        for (size_t i = 0; i < static_cast<size_t>(Phase::Count); ++i)
            names[i] = nvtxDomainRegisterStringA(handle, catalog_entry(static_cast<Phase>(i)).name);
    }
};

Domain& domain() {
    static Domain* instance = new Domain();  // never destroyed: ranges may close during exit
    return *instance;
}

void push(Phase phase, const char* detail) {
    Domain& d = domain();
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    if (detail != nullptr) {
        // The payload carries the detail (kernel name, hit/miss) only when a tool asked for it.
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = detail;
        attributes.category = static_cast<uint32_t>(phase) + 1;
    } else {
        attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        attributes.message.registered = d.names[static_cast<size_t>(phase)];
        attributes.category = static_cast<uint32_t>(phase) + 1;
    }
    nvtxDomainRangePushEx(d.handle, &attributes);
}

}  // namespace

bool enabled() noexcept { return domain().on; }

Scope::Scope(Phase phase) noexcept : active_(enabled()) {
    if (active_) push(phase, nullptr);
}

Scope::Scope(Phase phase, const char* detail) noexcept : active_(enabled()) {
    if (active_) push(phase, detail);
}

Scope::~Scope() {
    if (active_) nvtxDomainRangePop(domain().handle);
}

}  // namespace range
}  // namespace cuabi
