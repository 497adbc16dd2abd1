// Entry points of the "Profiler ranges" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "range/catalog.hpp"
#include "range/ranges.hpp"
#include "range/user_ranges.hpp"

using namespace cuabi;

extern "C" {

CUABI_API uint32_t cuabi_range_get_enabled(void) try {
    return range::enabled() ? 1u : 0u;
} catch (...) {
    guard::swallowed();
    return 0;
}

CUABI_API uint32_t cuabi_range_get_profiler_attached(void) try {
    return range::tool_attached() ? 1u : 0u;
} catch (...) {
    guard::swallowed();
    return 0;
}

CUABI_API cuabi_status cuabi_range_get_catalog_count(size_t* out_count) try {
    Status status = require_pointer(out_count, "out_count");
    if (status != CUABI_SUCCESS) return status;
    *out_count = range::kCatalogSize;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_range_get_catalog_entry(size_t index, const char** out_name, const char** out_description) try {
    Status status = require_pointer(out_name, "out_name");
    if (status != CUABI_SUCCESS) return status;
    if ((status = require_pointer(out_description, "out_description")) != CUABI_SUCCESS) return status;
    if (index >= range::kCatalogSize)
        return fail(CUABI_ERROR_NOT_FOUND, "ask cuabi_range_get_catalog_count for the number of entries",
                    "range catalog index %zu is past its last entry (%zu entries)", index, range::kCatalogSize);
    const range::CatalogEntry& entry = range::catalog_entry(static_cast<range::Phase>(index));
    *out_name = entry.name;
    *out_description = entry.description;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_range_push(const char* name, const char* domain) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    return range::push_user(name, domain);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_range_pop(void) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    return range::pop_user();
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_range_start(const char* name, const char* domain, cuabi_range** out_range) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_range, "out_range");
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<range::UserRange> started;
    if ((status = range::UserRange::start(name, domain, &started)) != CUABI_SUCCESS) return status;
    std::shared_ptr<range::UserRange> keep = started;
    status = publish(std::move(started), out_range);
    if (status != CUABI_SUCCESS) keep->end();  // no handle to end it with later: end it now
    return status;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_range_end(cuabi_range* range) try {
    // Removing the handle is what makes a second end fail: only one caller can take it out.
    std::shared_ptr<Object> taken =
        HandleTable::instance().remove(reinterpret_cast<uint64_t>(range), HandleType::Range, "range");
    if (!taken) return CUABI_ERROR_INVALID_HANDLE;
    static_cast<range::UserRange&>(*taken).end();
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
