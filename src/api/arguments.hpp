// Argument checks shared by the extern "C" entry points. Each records a message ending in
// "Fix: ..." and returns the status, so entry points read `if (status != OK) return status;`.
#pragma once

#include <optional>

#include "core/error.hpp"
#include "core/handle_table.hpp"
#include "core/options.hpp"

namespace cuabi {

// INVALID_ARGUMENT when a required pointer (out-parameter or input) is NULL.
inline Status require_pointer(const void* pointer, const char* parameter_name) {
    if (pointer != nullptr) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a valid pointer", "%s is NULL", parameter_name);
}

// STRUCT_SIZE when an output struct's struct_size cannot be any version of the struct. Checked
// before any work so that the caller learns it without a GPU (write_output checks again).
inline Status require_output_struct(uint32_t struct_size, const char* type_name, const char* init_function) {
    return check_output_struct_size(struct_size, type_name, init_function);
}

// INVALID_ARGUMENT when `flags` has bits outside `known`.
inline Status require_known_flags(uint32_t flags, uint32_t known, const char* field_name, const char* constants) {
    if ((flags & ~known) == 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, format("use only the %s constants", constants).c_str(),
                "%s is 0x%x; bits 0x%x are not defined by this version of cuabi", field_name, flags, flags & ~known);
}

// A handle parameter that may be NULL (e.g. a stream, where NULL means synchronous work):
// pinned like Pinned<T> when present, get() == nullptr when absent.
template <typename T>
class OptionalPinned {
public:
    OptionalPinned(const void* handle, const char* parameter_name) {
        if (handle != nullptr) pinned_.emplace(handle, parameter_name);
    }
    bool ok() const { return !pinned_ || pinned_->ok(); }
    T* get() const { return pinned_ ? pinned_->get() : nullptr; }

private:
    std::optional<Pinned<T>> pinned_;
};

}  // namespace cuabi
