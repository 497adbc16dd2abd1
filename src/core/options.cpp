#include "core/options.hpp"

#include <string>

namespace cuabi {

namespace {

// "56 or 64" -- the released sizes as a message lists them.
std::string released_list(const StructSizes& sizes) {
    std::string list;
    for (size_t i = 0; i < sizes.count; ++i)
        list += (i == 0 ? "" : i + 1 == sizes.count ? " or " : ", ") + std::to_string(sizes.released[i]);
    return list;
}

bool declared_by_a_header(uint32_t user_size, const StructSizes& sizes) {
    if (user_size > sizes.newest()) return true;  // a newer header's struct
    for (size_t i = 0; i < sizes.count; ++i)
        if (sizes.released[i] == user_size) return true;
    return false;
}

// The fix of a struct_size refusal, built only when refusing: the checks run on every launch and
// compile, where a message formatted ahead of need cost a heap allocation and two formats.
std::string init_fix(const StructSizes& sizes) {
    return format("initialize the struct with %s_init(), which sets struct_size to sizeof(%s)", sizes.type_name,
                  sizes.type_name);
}

}  // namespace

Status check_output_struct_size(uint32_t user_size, const StructSizes& sizes) {
    if (user_size == sizes.newest()) return CUABI_SUCCESS;  // this header's struct: the usual case
    // An uninitialized struct_size (stack garbage such as 0xA5A5A5A5) must be refused before
    // anything reads that far past the struct.
    if (user_size > CUABI_STRUCT_SIZE_MAX)
        return fail(CUABI_ERROR_STRUCT_SIZE, init_fix(sizes).c_str(),
                    "%s.struct_size is %u, more than any struct may claim (CUABI_STRUCT_SIZE_MAX, %u bytes): "
                    "the struct looks uninitialized",
                    sizes.type_name, user_size, CUABI_STRUCT_SIZE_MAX);
    if (!declared_by_a_header(user_size, sizes))
        return fail(CUABI_ERROR_STRUCT_SIZE, init_fix(sizes).c_str(),
                    "%s.struct_size is %u, which no release of %s has (its sizes: %s bytes, or more from a newer "
                    "header); the struct looks uninitialized or its size copied from another struct",
                    sizes.type_name, user_size, sizes.type_name, released_list(sizes).c_str());
    return CUABI_SUCCESS;
}

Status check_struct_size(const void* user, uint32_t user_size, const StructSizes& sizes) {
    Status status = check_output_struct_size(user_size, sizes);
    if (status != CUABI_SUCCESS) return status;
    const size_t known_size = sizes.newest();
    const unsigned char* bytes = static_cast<const unsigned char*>(user);
    for (size_t offset = known_size; offset < user_size; ++offset) {
        if (bytes[offset] != 0)
            return fail(CUABI_ERROR_STRUCT_SIZE,
                        "upgrade libcuabi to the version of the header you compiled against, or leave the "
                        "fields this version does not know at zero",
                        "%s.struct_size is %u but this library knows %zu bytes, and byte %zu of the unknown "
                        "tail is 0x%02x, not zero",
                        sizes.type_name, user_size, known_size, offset, bytes[offset]);
    }
    return CUABI_SUCCESS;
}

Status check_init_struct_size(uint32_t user_size, const StructSizes& sizes) {
    if (user_size <= CUABI_STRUCT_SIZE_MAX && declared_by_a_header(user_size, sizes)) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_STRUCT_SIZE, format("pass sizeof(%s) as struct_size", sizes.type_name).c_str(),
                "%s_init() was given struct_size %u; a %s is %s bytes (the sizes of its releases), or more from a "
                "newer header, at most %u bytes",
                sizes.type_name, user_size, sizes.type_name, released_list(sizes).c_str(), CUABI_STRUCT_SIZE_MAX);
}

}  // namespace cuabi
