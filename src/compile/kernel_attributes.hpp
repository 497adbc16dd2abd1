// A kernel's attributes on its context's device (cuFuncGetAttribute), for
// cuabi_kernel_get_attributes().
#pragma once

#include "compile/kernel.hpp"

namespace cuabi {

// The fields of cuabi_kernel_attributes (src/api/ copies them out).
struct KernelAttributes {
    int32_t registers_per_thread = 0;
    int32_t max_threads_per_block = 0;
    int32_t static_shared_memory_bytes = 0;
    int32_t constant_memory_bytes = 0;
    int32_t local_memory_bytes = 0;
    int32_t max_dynamic_shared_memory_bytes = 0;
    int32_t ptx_version = 0;
    int32_t binary_version = 0;
};

Status read_kernel_attributes(const Kernel& kernel, KernelAttributes* out);

}  // namespace cuabi
