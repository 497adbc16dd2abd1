#include "launch/arguments.hpp"

namespace cuabi {
namespace launch {
namespace {

// What a parameter of this size usually is, to make a size mismatch easy to place.
const char* typical_type(uint32_t size) {
    switch (size) {
        case 1: return " (e.g. char, int8_t, bool)";
        case 2: return " (e.g. short, half)";
        case 4: return " (e.g. int, float, uint32_t)";
        case 8: return " (e.g. a pointer, double, int64_t)";
        case 128: return " (e.g. a CUtensorMap: pass a cuabi_tensor_map)";
        default: return " (a struct passed by value)";
    }
}

}  // namespace

Status check_arguments(const char* kernel, const ParamLayout& layout, const cuabi_kernel_arg* args, size_t count) {
    if (count > 0 && args == nullptr)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass an array of arg_count cuabi_kernel_arg entries",
                    "kernel '%s': args is NULL but arg_count is %zu", kernel, count);
    if (layout.known && count != layout.count)
        return fail(CUABI_ERROR_ARGUMENT_COUNT,
                    format("pass exactly %u argument%s, one per kernel parameter in declaration order", layout.count,
                           layout.count == 1 ? "" : "s")
                        .c_str(),
                    "kernel '%s' takes %u parameter%s but %zu argument%s given", kernel, layout.count,
                    layout.count == 1 ? "" : "s", count, count == 1 ? " was" : "s were");
    if (count > kMaxTableArguments)
        return fail(CUABI_ERROR_ARGUMENT_COUNT,
                    "use cuabi_launch_packed(), which takes any number of parameters in one buffer",
                    "kernel '%s': %zu arguments exceed the %zu that cuabi_launch() passes through its argument table",
                    kernel, count, kMaxTableArguments);
    for (size_t i = 0; i < count; ++i) {
        if (args[i].value == nullptr)
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "point value at the argument's bytes (for a device pointer: at a variable holding the "
                        "address)",
                        "kernel '%s': args[%zu].value is NULL", kernel, i);
        if (!layout.known) {
            if (args[i].size == 0)
                return fail(CUABI_ERROR_ARGUMENT_SIZE, "pass the size in bytes of the parameter's type",
                            "kernel '%s': args[%zu].size is 0", kernel, i);
            continue;
        }
        const ParamSlot& slot = layout.slots[i];
        if (args[i].size != slot.size)
            return fail(CUABI_ERROR_ARGUMENT_SIZE,
                        format("pass a value of exactly %u bytes for parameter %zu%s", slot.size, i,
                               typical_type(slot.size))
                            .c_str(),
                        "kernel '%s': args[%zu] is %zu bytes, but parameter %zu is %u bytes (at offset %u)", kernel, i,
                        args[i].size, i, slot.size, slot.offset);
    }
    return CUABI_SUCCESS;
}

Status check_packed(const char* kernel, const ParamLayout& layout, const void* packed, size_t packed_size) {
    if (packed == nullptr && packed_size > 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the buffer holding the arguments at their parameter offsets",
                    "kernel '%s': packed is NULL but packed_size is %zu", kernel, packed_size);
    if (!layout.known || packed_size == layout.total_bytes) return CUABI_SUCCESS;
    if (layout.count == 0)
        return fail(CUABI_ERROR_ARGUMENT_SIZE, "pass packed_size 0 (packed may be NULL)",
                    "kernel '%s' takes no parameters but packed_size is %zu", kernel, packed_size);
    const ParamSlot& last = layout.slots[layout.count - 1];
    return fail(CUABI_ERROR_ARGUMENT_SIZE,
                format("lay the arguments out at the offsets cuabi_kernel_get_param_info() reports and pass packed_size "
                       "%u (a C struct's trailing padding is not part of it)",
                       layout.total_bytes)
                    .c_str(),
                "kernel '%s': packed_size is %zu, but its %u parameter%s take %u bytes (the last, parameter %u, is %u "
                "bytes at offset %u)",
                kernel, packed_size, layout.count, layout.count == 1 ? "" : "s", layout.total_bytes, layout.count - 1,
                last.size, last.offset);
}

}  // namespace launch
}  // namespace cuabi
