#include "launch/kernel_facts.hpp"

#include <mutex>

#include "range/ranges.hpp"

namespace cuabi {
namespace launch {
namespace {

// More parameters than fit the largest parameter space (32764 bytes) means the driver keeps
// answering for indices that do not exist; stop there instead of looping forever.
constexpr size_t kParamScanLimit = 32768;

Status read_attribute(const Kernel& kernel, CUfunction_attribute attribute, const char* attribute_name,
                      uint32_t* out) {
    int value = 0;
    CUresult result = kernel.context().api().cuFuncGetAttribute(&value, attribute, kernel.function());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuFuncGetAttribute", "check that the kernel's module is still loaded and the device usable",
                       "(%s) for kernel '%s'", attribute_name, kernel.name().c_str());
    *out = value < 0 ? 0u : static_cast<uint32_t>(value);
    return CUABI_SUCCESS;
}

Status read_attributes(const Kernel& kernel, KernelFacts* facts) {
    KernelLimits& limits = facts->limits;
    Status status = read_attribute(kernel, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "MAX_THREADS_PER_BLOCK",
                                   &limits.max_threads_per_block);
    if (status == CUABI_SUCCESS)
        status = read_attribute(kernel, CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &limits.registers_per_thread);
    if (status == CUABI_SUCCESS)
        status = read_attribute(kernel, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "SHARED_SIZE_BYTES",
                                &limits.static_shared_bytes);
    uint32_t max_dynamic = 0;
    if (status == CUABI_SUCCESS)
        status = read_attribute(kernel, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "MAX_DYNAMIC_SHARED_SIZE_BYTES",
                                &max_dynamic);
    if (status != CUABI_SUCCESS) return status;
    kernel.fast_path_.opted_in_shared.store(max_dynamic, std::memory_order_relaxed);
    // Compile-time cluster dimensions exist only from sm_90 on; older devices may refuse the query.
    if (facts->device.cc_major >= 9) {
        const CUfunction_attribute cluster[3] = {CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                                                 CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                                                 CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH};
        for (int i = 0; i < 3 && status == CUABI_SUCCESS; ++i)
            status = read_attribute(kernel, cluster[i], "REQUIRED_CLUSTER_*", &limits.required_cluster[i]);
    }
    return status;
}

// The parameter layout through cuFuncGetParamInfo, which answers CUDA_ERROR_INVALID_VALUE for the
// first index past the last parameter. Two passes: count, then fill an array of that size.
Status read_layout(const Kernel& kernel, KernelFacts* facts) {
    const DriverApi& api = kernel.context().api();
    ParamLayout& layout = facts->layout;
    if (api.cuFuncGetParamInfo == nullptr) return CUABI_SUCCESS;  // layout.known stays false
    size_t count = 0;
    for (;; ++count) {
        size_t offset = 0, size = 0;
        CUresult result = api.cuFuncGetParamInfo(kernel.function(), count, &offset, &size);
        if (result == CUDA_ERROR_INVALID_VALUE) break;
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuFuncGetParamInfo", "check that the kernel's module is still loaded",
                           "(parameter %zu) for kernel '%s'", count, kernel.name().c_str());
        if (count == kParamScanLimit)
            return fail(CUABI_ERROR_INTERNAL, "report this driver behaviour to the cuabi maintainers",
                        "cuFuncGetParamInfo reports more than %zu parameters for kernel '%s'", kParamScanLimit,
                        kernel.name().c_str());
    }
    facts->params.reset(new (std::nothrow) ParamSlot[count == 0 ? 1 : count]);
    if (!facts->params)
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory",
                    "could not allocate the parameter layout of kernel '%s' (%zu parameters)", kernel.name().c_str(),
                    count);
    uint32_t end = 0;
    for (size_t i = 0; i < count; ++i) {
        size_t offset = 0, size = 0;
        CUresult result = api.cuFuncGetParamInfo(kernel.function(), i, &offset, &size);
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuFuncGetParamInfo", "check that the kernel's module is still loaded",
                           "(parameter %zu) for kernel '%s'", i, kernel.name().c_str());
        facts->params[i].offset = static_cast<uint32_t>(offset);
        facts->params[i].size = static_cast<uint32_t>(size);
        if (offset + size > end) end = static_cast<uint32_t>(offset + size);
    }
    layout.known = true;
    layout.slots = facts->params.get();
    layout.count = static_cast<uint32_t>(count);
    layout.total_bytes = end;
    return CUABI_SUCCESS;
}

// Reads the facts and fills the kernel's fast-path summary; *out_fast says whether the fast path
// may take the kernel's launches.
Status read_facts(Kernel& kernel, KernelFacts* facts, bool* out_fast) {
    const Context& context = kernel.context();
    facts->device = device_limits_from(context.info());
    int least = 0, greatest = 0;
    CUresult result = context.api().cuCtxGetStreamPriorityRange(&least, &greatest);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuCtxGetStreamPriorityRange", "check that the device is still available (nvidia-smi)",
                       "on device %d", context.ordinal());
    facts->device.least_priority = least;
    facts->device.greatest_priority = greatest;
    Status status = read_attributes(kernel, facts);
    if (status == CUABI_SUCCESS) status = read_layout(kernel, facts);
    if (status != CUABI_SUCCESS) return status;
    FastPath& fast = kernel.fast_path_;
    *out_fast = prepare_fast_path(facts->device, facts->limits, facts->layout, &fast);
    fast.function = kernel.function();
    fast.context = context.cu_context();
    fast.counters = &context.counters();
    fast.launch_kernel = context.api().cuLaunchKernel;
    // With a profiler attached every launch takes the general path, which opens the launch range.
    // Attachment is decided once per process (range/nvtx_state.hpp), so this never goes stale.
    if (range::tool_attached()) *out_fast = false;
    return CUABI_SUCCESS;
}

}  // namespace

Status kernel_facts(Kernel& kernel, KernelFacts** out) {
    KernelFacts* ready = kernel.launch_facts_.load(std::memory_order_acquire);
    if (ready != nullptr && ready->status == CUABI_SUCCESS) {  // every launch after the first
        *out = ready;
        return CUABI_SUCCESS;
    }
    std::call_once(kernel.facts_once_, [&kernel] {
        KernelFacts* facts = new (std::nothrow) KernelFacts();
        if (facts == nullptr) return;  // reported below, on this and every later call
        bool fast = false;
        Status status = read_facts(kernel, facts, &fast);
        if (status != CUABI_SUCCESS) {
            facts->status = status;
            facts->error_message = last_error_message();
            facts->error_cu_result = last_cu_result();
        }
        kernel.release_facts_ = [](KernelFacts* made) { delete made; };  // before the facts are published
        kernel.launch_facts_.store(facts, std::memory_order_release);
        if (status == CUABI_SUCCESS && fast) kernel.fast_path_.eligible.store(true, std::memory_order_release);
    });
    KernelFacts* facts = kernel.launch_facts_.load(std::memory_order_acquire);
    if (facts == nullptr)
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory",
                    "could not allocate the launch facts of kernel '%s'", kernel.name().c_str());
    if (facts->status != CUABI_SUCCESS) return fail_again(facts->status, facts->error_message, facts->error_cu_result);
    *out = facts;
    return CUABI_SUCCESS;
}

Status ensure_dynamic_shared(const Kernel& kernel, KernelFacts& facts, uint32_t shared_bytes) {
    if (shared_bytes <= kernel.fast_path_.opted_in_shared.load(std::memory_order_acquire)) return CUABI_SUCCESS;
    // Rare (once per new maximum), so one process-wide lock: the attribute belongs to the CUfunction,
    // which two kernel handles may share, and concurrent setters must never lower it.
    static std::mutex raise_mutex;
    std::lock_guard<std::mutex> lock(raise_mutex);
    const DriverApi& api = kernel.context().api();
    int current = 0;
    CUresult result =
        api.cuFuncGetAttribute(&current, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, kernel.function());
    if (result == CUDA_SUCCESS && current >= 0 && static_cast<uint32_t>(current) >= shared_bytes) {
        kernel.fast_path_.opted_in_shared.store(static_cast<uint32_t>(current), std::memory_order_release);
        return CUABI_SUCCESS;
    }
    result = api.cuFuncSetAttribute(kernel.function(), CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                    static_cast<int>(shared_bytes));
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(
            CUABI_ERROR_LAUNCH_SHARED_MEMORY, result, "request less dynamic shared memory",
            "kernel '%s': raising its dynamic shared memory limit to %u bytes failed with %s (%u static bytes; %s "
            "allows %u per block)",
            kernel.name().c_str(), shared_bytes, cu_result_text(result).c_str(), facts.limits.static_shared_bytes,
            facts.device.arch, facts.device.shared_per_block_optin);
    kernel.fast_path_.opted_in_shared.store(shared_bytes, std::memory_order_release);
    return CUABI_SUCCESS;
}

}  // namespace launch
}  // namespace cuabi
