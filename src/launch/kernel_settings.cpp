#include "launch/kernel_settings.hpp"

#include "launch/kernel_facts.hpp"

namespace cuabi {
namespace launch {
namespace {

Status check_range(const char* attribute, int32_t value, int32_t low, int32_t high, const char* fix) {
    if (value >= low && value <= high) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, fix, "%s %d is outside %d..%d", attribute, value, low, high);
}

Status set_function_attribute(const Kernel& kernel, CUfunction_attribute attribute, int32_t value, const char* what) {
    CUresult result = kernel.context().api().cuFuncSetAttribute(kernel.function(), attribute, value);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuFuncSetAttribute", "check the value against the device's limits",
                       "(%s = %d) for kernel '%s'", what, value, kernel.name().c_str());
    return CUABI_SUCCESS;
}

}  // namespace

Status set_kernel_attribute(Kernel& kernel, int32_t attribute, int32_t value) {
    const char* name = kernel.name().c_str();
    Status status = CUABI_SUCCESS;
    switch (attribute) {
        case CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT:
            status = check_range("CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT", value, -1, 100,
                                 "pass a percentage from 0 to 100, or -1 for no preference");
            break;
        case CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE:
            status = check_range("CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE", value, 0, 1,
                                 "pass 1 to allow non-portable cluster sizes, 0 to forbid them");
            break;
        case CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG:
            status = check_range("CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG", value, CUABI_CACHE_PREFER_NONE,
                                 CUABI_CACHE_PREFER_EQUAL, "pass one of CUABI_CACHE_PREFER_NONE/_SHARED/_L1/_EQUAL");
            break;
        default:
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass one of the CUABI_KERNEL_ATTRIBUTE_* values",
                        "kernel '%s': attribute %d is not a CUABI_KERNEL_ATTRIBUTE_*", name, attribute);
    }
    if (status != CUABI_SUCCESS) return status;
    if ((status = kernel.context().make_current()) != CUABI_SUCCESS) return status;
    KernelFacts* facts = nullptr;
    if ((status = kernel_facts(kernel, &facts)) != CUABI_SUCCESS) return status;

    switch (attribute) {
        case CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT:
            status = set_function_attribute(kernel, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, value,
                                            "CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT");
            break;
        case CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE:
            if (value == 1 && (facts->device.cc_major < 9 || !facts->device.cluster_launch))
                return fail(CUABI_ERROR_UNSUPPORTED, "launch without clusters on this device",
                            "kernel '%s': non-portable cluster sizes need thread block clusters (compute capability "
                            "9.0 or newer), and the device is %s",
                            name, facts->device.arch);
            status = set_function_attribute(kernel, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, value,
                                            "CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED");
            break;
        default: {  // CACHE_CONFIG: the CUABI_CACHE_PREFER_* values are CUfunc_cache's
            CUresult result =
                kernel.context().api().cuFuncSetCacheConfig(kernel.function(), static_cast<CUfunc_cache>(value));
            if (result != CUDA_SUCCESS)
                status = fail_cu(result, "cuFuncSetCacheConfig", "check that the kernel's module is still loaded",
                                 "(%d) for kernel '%s'", value, name);
        }
    }
    if (status != CUABI_SUCCESS) return status;
    // The carveout and the cache split change how many blocks fit; the cluster setting changes the
    // largest cluster. Answers cached before are stale.
    facts->blocks_per_multiprocessor.clear();
    facts->max_cluster_blocks.clear();
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
