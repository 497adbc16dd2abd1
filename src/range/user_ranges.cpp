#include "range/user_ranges.hpp"

#include <new>
#include <vector>

#include "range/nvtx_state.hpp"
#include "range/text_check.hpp"

namespace cuabi {
namespace range {
namespace {

// The domains of the thread's open user ranges, innermost last. NVTX pops per domain, so the
// domain each push went to is remembered for its pop.
std::vector<nvtxDomainHandle_t>& open_ranges() {
    thread_local std::vector<nvtxDomainHandle_t> domains;
    return domains;
}

nvtxEventAttributes_t attributes_for(const char* name) {
    nvtxEventAttributes_t attributes{};
    attributes.version = NVTX_VERSION;
    attributes.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attributes.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attributes.message.ascii = name;
    return attributes;
}

Status check_names(const char* name, const char* domain) {
    Status status = check_range_text(name, "name", false);
    if (status != CUABI_SUCCESS) return status;
    return check_range_text(domain, "domain", true);
}

}  // namespace

Status push_user(const char* name, const char* domain) {
    Status status = check_names(name, domain);
    if (status != CUABI_SUCCESS) return status;
    nvtxDomainHandle_t handle = nullptr;
    if ((status = domain_for(domain, &handle)) != CUABI_SUCCESS) return status;
    try {
        open_ranges().push_back(handle);
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "pop the ranges this thread no longer needs",
                    "no memory to track range '%s' on top of %zu open ranges", name, open_ranges().size());
    }
    if (nvtx_state().tool) {
        nvtxEventAttributes_t attributes = attributes_for(name);
        nvtxDomainRangePushEx(handle, &attributes);
    }
    return CUABI_SUCCESS;
}

Status pop_user() {
    std::vector<nvtxDomainHandle_t>& open = open_ranges();
    if (open.empty())
        return fail(CUABI_ERROR_RANGE,
                    "pop only what this thread pushed with cuabi_range_push (for ranges that end on another "
                    "thread, use cuabi_range_start / cuabi_range_end)",
                    "cuabi_range_pop on a thread with no range pushed through cuabi_range_push");
    nvtxDomainHandle_t handle = open.back();
    open.pop_back();
    if (nvtx_state().tool) nvtxDomainRangePop(handle);
    return CUABI_SUCCESS;
}

size_t user_depth() { return open_ranges().size(); }

Status UserRange::start(const char* name, const char* domain, std::shared_ptr<UserRange>* out) {
    Status status = check_names(name, domain);
    if (status != CUABI_SUCCESS) return status;
    nvtxDomainHandle_t handle = nullptr;
    if ((status = domain_for(domain, &handle)) != CUABI_SUCCESS) return status;
    nvtxRangeId_t id = 0;
    if (nvtx_state().tool) {
        nvtxEventAttributes_t attributes = attributes_for(name);
        id = nvtxDomainRangeStartEx(handle, &attributes);
    }
    try {
        out->reset(new UserRange(handle, id));
    } catch (const std::bad_alloc&) {
        if (nvtx_state().tool) nvtxDomainRangeEnd(handle, id);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "no memory for range '%s'", name);
    }
    return CUABI_SUCCESS;
}

void UserRange::end() {
    if (nvtx_state().tool) nvtxDomainRangeEnd(domain_, id_);
}

}  // namespace range
}  // namespace cuabi
