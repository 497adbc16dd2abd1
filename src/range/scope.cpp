#include <cstdio>

#include "range/catalog.hpp"
#include "range/nvtx_state.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace range {
namespace {

// Only called with a tool attached.
void push(const NvtxState& state, Phase phase, const char* detail) {
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

bool tool_attached() noexcept { return nvtx_state().tool; }

Scope::Scope(Phase phase) noexcept : active_(nvtx_state().tool) {
    if (active_) push(nvtx_state(), phase, nullptr);
}

Scope::Scope(Phase phase, const char* detail) noexcept : active_(nvtx_state().tool) {
    if (active_) push(nvtx_state(), phase, detail);
}

Scope::~Scope() {
    if (active_) nvtxDomainRangePop(nvtx_state().domain);
}

}  // namespace range
}  // namespace cuabi
