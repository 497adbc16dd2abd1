#include "core/options.hpp"

namespace cuabi {

Status check_struct_size(const void* user, uint32_t user_size, size_t known_size, const char* type_name,
                         const char* init_function) {
    // Every options struct has at least one field after struct_size.
    if (user_size < sizeof(uint32_t) * 2)
        return fail(CUABI_ERROR_STRUCT_SIZE, format("initialize the struct with %s()", init_function).c_str(),
                    "%s.struct_size is %u, smaller than any version of %s", type_name, user_size, type_name);
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
