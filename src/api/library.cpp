// Entry points of the "Errors" and "Library" groups of cuabi.h.
#include <algorithm>
#include <cstring>
#include <iterator>

#include "core/error.hpp"
#include "core/status_names.hpp"
#include "cuabi/cuabi.h"

namespace {

struct ProcEntry {
    const char* name;
    cuabi_proc function;
};

// Generated at build time from the CUABI_API declarations in cuabi.h (cmake/ProcTable.cmake),
// sorted by name, so every exported function is listed exactly once.
const ProcEntry kProcTable[] = {
#define CUABI_PROC(name) {#name, reinterpret_cast<cuabi_proc>(&name)},
#include "cuabi_proc_table.inc"
#undef CUABI_PROC
};

}  // namespace

extern "C" {

CUABI_API const char* cuabi_status_name(cuabi_status status) { return cuabi::status_name(status); }
CUABI_API const char* cuabi_last_error_message(void) { return cuabi::last_error_message(); }
CUABI_API int32_t cuabi_last_cu_result(void) { return cuabi::last_cu_result(); }
CUABI_API int32_t cuabi_last_nvrtc_result(void) { return cuabi::last_nvrtc_result(); }
CUABI_API uint32_t cuabi_version_number(void) { return CUABI_VERSION_NUMBER; }
CUABI_API uint32_t cuabi_abi_version(void) { return CUABI_ABI_VERSION; }

CUABI_API cuabi_proc cuabi_get_proc_address(const char* name) {
    if (name == nullptr) return nullptr;
    auto less = [](const ProcEntry& entry, const char* key) { return std::strcmp(entry.name, key) < 0; };
    const ProcEntry* found = std::lower_bound(std::begin(kProcTable), std::end(kProcTable), name, less);
    if (found == std::end(kProcTable) || std::strcmp(found->name, name) != 0) return nullptr;
    return found->function;
}

}  // extern "C"
