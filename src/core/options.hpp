// Reading versioned option structs and filling versioned output structs.
//
// Input structs: NULL means defaults; a smaller struct (older header) is copied over the defaults
// so the fields it lacks keep their default; a larger struct (newer header) is accepted only when
// every byte past what this library knows is zero.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "core/error.hpp"

namespace cuabi {

// Input structs: STRUCT_SIZE for a size no version of the struct can have (below the first field
// after struct_size, above CUABI_STRUCT_SIZE_MAX) or an unknown tail that is not all zero.
Status check_struct_size(const void* user, uint32_t user_size, size_t known_size, const char* type_name,
                         const char* init_function);
// Output structs: STRUCT_SIZE for a size no version of the struct can have.
Status check_output_struct_size(uint32_t user_size, const char* type_name, const char* init_function);

// The caller's struct as this library's T without a copy where none is needed: `user` itself when
// it holds every field of T (a caller built against this header or a newer one, the usual case),
// else `scratch` filled by read_options(). For readers that copy each field out once anyway.
template <typename T>
Status view_options(const T* user, const T& defaults, const char* type_name, const char* init_function, T* scratch,
                    const T** out);

// Copies *user (may be NULL) over *defaults and returns the result in *out.
template <typename T>
Status read_options(const T* user, const T& defaults, const char* type_name, const char* init_function, T* out) {
    if (user == nullptr) {
        *out = defaults;
        return CUABI_SUCCESS;
    }
    Status status = check_struct_size(user, user->struct_size, sizeof(T), type_name, init_function);
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

template <typename T>
Status view_options(const T* user, const T& defaults, const char* type_name, const char* init_function, T* scratch,
                    const T** out) {
    if (user == nullptr || user->struct_size < sizeof(T)) {
        *out = scratch;
        return read_options(user, defaults, type_name, init_function, scratch);
    }
    Status status = check_struct_size(user, user->struct_size, sizeof(T), type_name, init_function);
    if (status != CUABI_SUCCESS) return status;
    *out = user;
    return CUABI_SUCCESS;
}

// The cuabi_<struct>_init() functions: fills the caller's struct_size bytes of *out with `defaults`
// (as much of them as the caller's struct holds) and zeros (for fields newer than this library),
// then sets struct_size to the caller's. Never writes past a struct from an older header.
template <typename T>
Status init_struct(const T& defaults, uint32_t struct_size, T* out, const char* type_name, const char* init_function) {
    if (out == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the address of the struct to prepare",
                    "%s() was given a NULL %s pointer", init_function, type_name);
    if (struct_size < sizeof(uint32_t) * 2 || struct_size > CUABI_STRUCT_SIZE_MAX)
        return fail(CUABI_ERROR_STRUCT_SIZE, format("pass sizeof(%s) as struct_size", type_name).c_str(),
                    "%s() was given struct_size %u; a %s is at least 8 and at most %u bytes", init_function,
                    struct_size, type_name, CUABI_STRUCT_SIZE_MAX);
    const size_t known = struct_size < sizeof(T) ? struct_size : sizeof(T);
    std::memcpy(static_cast<void*>(out), &defaults, known);
    if (struct_size > known) std::memset(reinterpret_cast<unsigned char*>(out) + known, 0, struct_size - known);
    out->struct_size = struct_size;
    return CUABI_SUCCESS;
}

// Writes `value` into a caller's output struct, as much of it as the caller's struct_size holds.
// Fails (CUABI_ERROR_STRUCT_SIZE) when struct_size is smaller than the struct_size field itself.
template <typename T>
Status write_output(const T& value, T* user, const char* type_name, const char* init_function) {
    uint32_t user_size = user->struct_size;
    Status status = check_output_struct_size(user_size, type_name, init_function);
    if (status != CUABI_SUCCESS) return status;
    size_t copy = user_size < sizeof(T) ? user_size : sizeof(T);
    std::memcpy(static_cast<void*>(user), &value, copy);
    user->struct_size = static_cast<uint32_t>(copy);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
