#include <cstdio>

#include "range/catalog.hpp"
#include "range/nvtx_state.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace range {
namespace {

// Only called with a tool attached.
void push_range(const NvtxState& state, Phase phase, const char* detail) {
    size_t index = static_cast<size_t>(phase);
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.category = static_cast<uint32_t>(index) + 1;
    // A registered string costs the tool nothing per push; a detail needs a message of its own,
    // formatted here on the stack (the tool copies it before the push returns).
    char message[256];
    if (detail != nullptr) {
        std::snprintf(message, sizeof message, "%s: %s", catalog_entry(phase).name, detail);
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = message;
    } else if (state.names[index] != nullptr) {
        attributes.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
        attributes.message.registered = state.names[index];
    } else {  // a tool that does not register strings still gets the name
        attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
        attributes.message.ascii = catalog_entry(phase).name;
    }
    nvtxDomainRangePushEx(state.domain, &attributes);
}

}  // namespace

bool enabled() noexcept { return nvtx_state().on; }

namespace detail {

std::atomic<int8_t> attached{-1};

bool resolve_attached() noexcept {
    bool tool = nvtx_state().tool;
    attached.store(tool ? 1 : 0, std::memory_order_relaxed);
    return tool;
}

void push(Phase phase, const char* detail) noexcept { push_range(nvtx_state(), phase, detail); }

void pop() noexcept { nvtxDomainRangePop(nvtx_state().domain); }

}  // namespace detail

}  // namespace range
}  // namespace cuabi
