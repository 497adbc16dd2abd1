// Entry points of the "Errors" and "Library" groups of cuabi.h.
#include <algorithm>
#include <cstring>
#include <iterator>

#include "api/guard.hpp"
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

namespace guard = cuabi::guard;

extern "C" {

CUABI_API const char* cuabi_status_name(cuabi_status status) try {
    return cuabi::status_name(status);
} catch (...) {
    guard::swallowed();
    return "CUABI_UNKNOWN_STATUS";
}
CUABI_API const char* cuabi_last_error_message(void) try {
    return cuabi::last_error_message();
} catch (...) {
    guard::swallowed();
    return "cuabi could not read the last error message. Fix: retry the call.";
}
CUABI_API int32_t cuabi_last_cu_result(void) try {
    return cuabi::last_cu_result();
} catch (...) {
    guard::swallowed();
    return 0;
}
CUABI_API int32_t cuabi_last_nvrtc_result(void) try {
    return cuabi::last_nvrtc_result();
} catch (...) {
    guard::swallowed();
    return 0;
}
CUABI_API uint32_t cuabi_version_number(void) try {
    return CUABI_VERSION_NUMBER;
} catch (...) {
    guard::swallowed();
    return 0;
}
CUABI_API uint32_t cuabi_abi_version(void) try {
    return CUABI_ABI_VERSION;
} catch (...) {
    guard::swallowed();
    return 0;
}

CUABI_API cuabi_proc cuabi_get_proc_address(const char* name) try {
    if (name == nullptr) return nullptr;
    auto less = [](const ProcEntry& entry, const char* key) { return std::strcmp(entry.name, key) < 0; };
    const ProcEntry* found = std::lower_bound(std::begin(kProcTable), std::end(kProcTable), name, less);
    if (found == std::end(kProcTable) || std::strcmp(found->name, name) != 0) return nullptr;
    return found->function;
} catch (...) {
    guard::swallowed();
    return nullptr;
}

}  // extern "C"
