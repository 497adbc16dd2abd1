#include "compile/kernel_attributes.hpp"

namespace cuabi {

Status read_kernel_attributes(const Kernel& kernel, KernelAttributes* out) {
    KernelAttributes attributes;
    const struct {
        CUfunction_attribute attribute;
        int32_t* field;
    } fields[] = {
        {CU_FUNC_ATTRIBUTE_NUM_REGS, &attributes.registers_per_thread},
        {CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &attributes.max_threads_per_block},
        {CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &attributes.static_shared_memory_bytes},
        {CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &attributes.constant_memory_bytes},
        {CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &attributes.local_memory_bytes},
        {CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &attributes.max_dynamic_shared_memory_bytes},
        {CU_FUNC_ATTRIBUTE_PTX_VERSION, &attributes.ptx_version},
        {CU_FUNC_ATTRIBUTE_BINARY_VERSION, &attributes.binary_version},
    };
    Status status = kernel.context().make_current();
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = kernel.context().api();
    for (const auto& entry : fields) {
        int value = 0;
        CUresult result = api.cuFuncGetAttribute(&value, entry.attribute, kernel.function());
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuFuncGetAttribute", "check that the device is still available (nvidia-smi)",
                           "(attribute %d) for kernel '%s'", static_cast<int>(entry.attribute), kernel.name().c_str());
        *entry.field = value;
    }
    *out = attributes;
    return CUABI_SUCCESS;
}

}  // namespace cuabi
