// Kernel arguments against the kernel's real parameter layout.
//
// The layout comes from cuFuncGetParamInfo (CUDA 12.4+ drivers). Where the driver lacks it the
// layout is "unknown" and validation is reduced to what needs no layout: non-NULL values and
// non-zero sizes in a table, a non-NULL packed buffer when its size is not 0; packed launches then
// hand the driver the whole buffer (CU_LAUNCH_PARAM_BUFFER_POINTER) and it checks the size.
// Pure functions, like launch/geometry.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"

namespace cuabi {
namespace launch {

// The argument pointer table for cuLaunchKernel lives on the launching thread's stack, so a
// table launch has a fixed maximum; cuabi_launch_packed has none.
constexpr size_t kMaxTableArguments = 256;

struct ParamSlot {
    uint32_t offset = 0;
    uint32_t size = 0;
};

// A view of a kernel's parameters, in declaration order.
struct ParamLayout {
    bool known = false;  // false when the driver has no cuFuncGetParamInfo
    const ParamSlot* slots = nullptr;
    uint32_t count = 0;
    uint32_t total_bytes = 0;  // where the last parameter ends (0 for no parameters)
};

// For cuabi_launch: INVALID_ARGUMENT for a NULL table or value, ARGUMENT_COUNT for a count that
// differs from the kernel's or exceeds kMaxTableArguments, ARGUMENT_SIZE for a size that differs
// from the parameter's.
Status check_arguments(const char* kernel, const ParamLayout& layout, const cuabi_kernel_arg* args, size_t count);

// For cuabi_launch_packed: INVALID_ARGUMENT for a NULL buffer of non-zero size, ARGUMENT_SIZE
// when packed_size is not exactly the kernel's parameter bytes.
Status check_packed(const char* kernel, const ParamLayout& layout, const void* packed, size_t packed_size);

}  // namespace launch
}  // namespace cuabi
