// Reading versioned option structs and filling versioned output structs.
//
// A struct's struct_size must be one its header ever declared: a size of one of its releases
// (`StructSizes`, newest last, which is this library's sizeof), or -- a struct from a newer
// header -- larger than the newest, up to CUABI_STRUCT_SIZE_MAX. Any other size is what stack
// garbage or a copied sizeof looks like, and reading it would take part of a field (half a
// pointer) from the caller and the rest from the defaults; it is refused with STRUCT_SIZE.
//
// Input structs: NULL means defaults; an older release's smaller struct is copied over the
// defaults so the fields it lacks keep their default; a newer, larger struct is accepted only when
// every byte past what this library knows is zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"

namespace cuabi {

// The struct_size of every release of one struct, ascending; the last is this library's sizeof.
struct StructSizes {
    const char* type_name;  // e.g. "cuabi_compile_options"; its init function is <type_name>_init
    const uint32_t* released;
    size_t count;
    constexpr uint32_t newest() const { return released[count - 1]; }
};

// Input structs: STRUCT_SIZE for a size no header declared, or a newer struct whose unknown tail
// is not all zero.
Status check_struct_size(const void* user, uint32_t user_size, const StructSizes& sizes);
// Output structs: STRUCT_SIZE for a size no header declared (the tail of a newer struct is the
// caller's memory, left as it is).
Status check_output_struct_size(uint32_t user_size, const StructSizes& sizes);
// The _init() functions: STRUCT_SIZE for a size no header declared.
Status check_init_struct_size(uint32_t user_size, const StructSizes& sizes);

// Copies *user (may be NULL) over *defaults and returns the result in *out.
template <typename T>
Status read_options(const T* user, const T& defaults, const StructSizes& sizes, T* out) {
    if (user == nullptr) {
        *out = defaults;
        return CUABI_SUCCESS;
    }
    Status status = check_struct_size(user, user->struct_size, sizes);
    if (status != CUABI_SUCCESS) return status;
    if (user->struct_size >= sizeof(T)) {
        // A caller built against this header (or a newer one): every field is the caller's, and a
        // copy of constant size is a few moves rather than a call. Hot paths read options per call.
        std::memcpy(static_cast<void*>(out), user, sizeof(T));
    } else {
        *out = defaults;
        std::memcpy(static_cast<void*>(out), user, user->struct_size);
    }
    out->struct_size = sizeof(T);
    return CUABI_SUCCESS;
}

// The caller's struct as this library's T without a copy where none is needed: `user` itself when
// it holds every field of T (a caller built against this header or a newer one, the usual case),
// else `scratch` filled by read_options(). For readers that copy each field out once anyway.
template <typename T>
Status view_options(const T* user, const T& defaults, const StructSizes& sizes, T* scratch, const T** out) {
    if (user == nullptr || user->struct_size < sizeof(T)) {
        *out = scratch;
        return read_options(user, defaults, sizes, scratch);
    }
    Status status = check_struct_size(user, user->struct_size, sizes);
    if (status != CUABI_SUCCESS) return status;
    *out = user;
    return CUABI_SUCCESS;
}

// The cuabi_<struct>_init() functions: fills the caller's struct_size bytes of *out with `defaults`
// (as much of them as the caller's struct holds) and zeros (for fields newer than this library),
// then sets struct_size to the caller's. Never writes past a struct from an older header.
template <typename T>
Status init_struct(const T& defaults, uint32_t struct_size, T* out, const StructSizes& sizes) {
    if (out == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the address of the struct to prepare",
                    "%s_init() was given a NULL %s pointer", sizes.type_name, sizes.type_name);
    Status status = check_init_struct_size(struct_size, sizes);
    if (status != CUABI_SUCCESS) return status;
    const size_t known = struct_size < sizeof(T) ? struct_size : sizeof(T);
    std::memcpy(static_cast<void*>(out), &defaults, known);
    if (struct_size > known) std::memset(reinterpret_cast<unsigned char*>(out) + known, 0, struct_size - known);
    out->struct_size = struct_size;
    return CUABI_SUCCESS;
}

// Writes `value` into a caller's output struct, as much of it as the caller's struct_size holds,
// and sets struct_size to what was written.
template <typename T>
Status write_output(const T& value, T* user, const StructSizes& sizes) {
    uint32_t user_size = user->struct_size;
    Status status = check_output_struct_size(user_size, sizes);
    if (status != CUABI_SUCCESS) return status;
    size_t copy = user_size < sizeof(T) ? user_size : sizeof(T);
    std::memcpy(static_cast<void*>(user), &value, copy);
    user->struct_size = static_cast<uint32_t>(copy);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
