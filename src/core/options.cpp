#include "core/options.hpp"

namespace cuabi {

Status check_output_struct_size(uint32_t user_size, const char* type_name, const char* init_function) {
    // Every struct has at least one field after struct_size. An uninitialized struct_size (stack
    // garbage such as 0xA5A5A5A5) must be refused before anything reads that far past the struct.
    if (user_size < sizeof(uint32_t) * 2)
        return fail(CUABI_ERROR_STRUCT_SIZE, format("initialize the struct with %s()", init_function).c_str(),
                    "%s.struct_size is %u, smaller than any version of %s", type_name, user_size, type_name);
    if (user_size > CUABI_STRUCT_SIZE_MAX)
        return fail(CUABI_ERROR_STRUCT_SIZE, format("initialize the struct with %s()", init_function).c_str(),
                    "%s.struct_size is %u, more than any struct may claim (CUABI_STRUCT_SIZE_MAX, %u bytes): "
                    "the struct looks uninitialized",
                    type_name, user_size, CUABI_STRUCT_SIZE_MAX);
    return CUABI_SUCCESS;
}

Status check_struct_size(const void* user, uint32_t user_size, size_t known_size, const char* type_name,
                         const char* init_function) {
    Status status = check_output_struct_size(user_size, type_name, init_function);
    if (status != CUABI_SUCCESS) return status;
    if (user_size > known_size) {
        const unsigned char* bytes = static_cast<const unsigned char*>(user);
        for (size_t offset = known_size; offset < user_size; ++offset) {
            if (bytes[offset] != 0)
                return fail(CUABI_ERROR_STRUCT_SIZE,
                            "upgrade libcuabi to the version of the header you compiled against, or leave the "
                            "fields this version does not know at zero",
                            "%s.struct_size is %u but this library knows %zu bytes, and byte %zu of the unknown "
                            "tail is 0x%02x, not zero",
                            type_name, user_size, known_size, offset, bytes[offset]);
        }
    }
    return CUABI_SUCCESS;
}

}  // namespace cuabi
