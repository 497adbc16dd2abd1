#include "device/host_memory.hpp"

#include <new>

namespace cuabi {
namespace {

const char* const kFixPinLess =
    "pin less memory (pinned pages are taken from the whole system), or raise the locked-memory limit (ulimit -l)";

// CUABI_HOST_MEMORY_* to the driver's flags. Allocation and registration flags share the values
// of PORTABLE and DEVICEMAP; WRITECOMBINED exists for allocation only.
unsigned int driver_flags(uint32_t flags, bool registering) {
    unsigned int result = 0;
    if (flags & CUABI_HOST_MEMORY_PORTABLE) result |= registering ? CU_MEMHOSTREGISTER_PORTABLE : CU_MEMHOSTALLOC_PORTABLE;
    if (flags & CUABI_HOST_MEMORY_DEVICE_MAPPED)
        result |= registering ? CU_MEMHOSTREGISTER_DEVICEMAP : CU_MEMHOSTALLOC_DEVICEMAP;
    if (flags & CUABI_HOST_MEMORY_WRITE_COMBINED) result |= CU_MEMHOSTALLOC_WRITECOMBINED;
    return result;
}

}  // namespace

Status HostMemory::allocate(std::shared_ptr<Context> context, size_t size, uint32_t flags,
                            std::shared_ptr<HostMemory>* out) {
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = context->api();
    void* pointer = nullptr;
    CUresult result = api.cuMemHostAlloc(&pointer, size, driver_flags(flags, false));
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
        return fail_with_cu_result(CUABI_ERROR_OUT_OF_HOST_MEMORY, result, kFixPinLess,
                                   "cuMemHostAlloc could not pin %zu bytes of host memory for device %d (%s)", size,
                                   context->ordinal(), cu_result_text(result).c_str());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemHostAlloc", "check the size and flags", "for %zu bytes (flags 0x%x) on device %d",
                       size, flags, context->ordinal());
    std::shared_ptr<HostMemory> created(new (std::nothrow) HostMemory(std::move(context), pointer, size, flags, false));
    if (!created) {
        api.cuMemFreeHost(pointer);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a host memory object");
    }
    *out = std::move(created);
    return CUABI_SUCCESS;
}

Status HostMemory::register_range(std::shared_ptr<Context> context, void* pointer, size_t size, uint32_t flags,
                                  std::shared_ptr<HostMemory>* out) {
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = context->api();
    CUresult result = api.cuMemHostRegister(pointer, size, driver_flags(flags, true));
    if (result == CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)
        return fail_with_cu_result(CUABI_ERROR_INVALID_ARGUMENT, result,
                                   "register each range once: destroy the handle that registered it, or use that handle",
                                   "cuMemHostRegister refused %zu bytes at %p: (part of) the range is already "
                                   "page-locked (%s)",
                                   size, pointer, cu_result_text(result).c_str());
    if (result == CUDA_ERROR_OUT_OF_MEMORY)
        return fail_with_cu_result(CUABI_ERROR_OUT_OF_HOST_MEMORY, result, kFixPinLess,
                                   "cuMemHostRegister could not pin %zu bytes at %p (%s)", size, pointer,
                                   cu_result_text(result).c_str());
    if (result == CUDA_ERROR_INVALID_VALUE || result == CUDA_ERROR_NOT_PERMITTED || result == CUDA_ERROR_NOT_SUPPORTED)
        return fail_with_cu_result(CUABI_ERROR_INVALID_ARGUMENT, result,
                                   "register ordinary, writable host memory (malloc, new, mmap of anonymous memory) "
                                   "that stays allocated for the whole range",
                                   "cuMemHostRegister refused %zu bytes at %p (%s)", size, pointer,
                                   cu_result_text(result).c_str());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemHostRegister", "check the pointer and size", "for %zu bytes at %p", size, pointer);
    std::shared_ptr<HostMemory> created(new (std::nothrow) HostMemory(std::move(context), pointer, size, flags, true));
    if (!created) {
        api.cuMemHostUnregister(pointer);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a host memory object");
    }
    *out = std::move(created);
    return CUABI_SUCCESS;
}

HostMemory::~HostMemory() {
    // Both calls need the memory's context current on this thread; a destructor cannot report.
    if (context_->make_current() != CUABI_SUCCESS) return;
    if (registered_)
        context_->api().cuMemHostUnregister(pointer_);
    else
        context_->api().cuMemFreeHost(pointer_);
}

Status HostMemory::device_address(uint64_t* out_address) const {
    if ((flags_ & CUABI_HOST_MEMORY_DEVICE_MAPPED) == 0)
        return fail(CUABI_ERROR_UNSUPPORTED,
                    "create or register the memory with CUABI_HOST_MEMORY_DEVICE_MAPPED to reach it from kernels",
                    "this host memory (%zu bytes at %p) is not mapped into the device's address space", size_,
                    pointer_);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUdeviceptr address = 0;
    CUresult result = context_->api().cuMemHostGetDevicePointer(&address, pointer_, 0);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemHostGetDevicePointer", "check that the device supports mapped host memory",
                       "for %zu bytes at %p on device %d", size_, pointer_, context_->ordinal());
    *out_address = static_cast<uint64_t>(address);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
