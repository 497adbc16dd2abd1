// Argument checks shared by the extern "C" entry points. Each records a message ending in
// "Fix: ..." and returns the status, so entry points read `if (status != OK) return status;`.
#pragma once

#include <memory>
#include <optional>
#include <utility>

#include "core/error.hpp"
#include "core/handle_table.hpp"

namespace cuabi {

// INVALID_ARGUMENT when a required pointer (out-parameter or input) is NULL.
inline Status require_pointer(const void* pointer, const char* parameter_name) {
    if (pointer != nullptr) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a valid pointer", "%s is NULL", parameter_name);
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

// Runs `work` on the object behind `handle`, pinned while it runs, or refuses the handle.
template <typename T, typename Work>
Status with_pinned(const void* handle, const char* parameter_name, Work&& work) {
    Pinned<T> pinned(handle, parameter_name);
    return pinned.ok() ? work(*pinned) : refused_handle();
}

// The shape of a getter: *out = read(the object behind `handle`).
template <typename T, typename Out, typename Read>
Status get_value(const void* handle, const char* handle_name, Out* out, const char* out_name, Read&& read) {
    Status status = require_pointer(out, out_name);
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<T>(handle, handle_name, [&](T& object) {
        *out = read(object);
        return CUABI_SUCCESS;
    });
}

// The end of a create: the new object published in *out when making it succeeded.
template <typename Public, typename T>
Status publish_created(Status status, std::shared_ptr<T> object, Public** out) {
    return status == CUABI_SUCCESS ? publish(std::move(object), out) : status;
}

}  // namespace cuabi
