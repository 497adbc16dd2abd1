// Managed buffers: one address for host and device, pages migrated by the driver on access or
// ahead of it (prefetch), placed according to advice.
#include <new>

#include "core/deferred_release.hpp"
#include "device/buffer.hpp"

namespace cuabi {
namespace {

// UNSUPPORTED unless device `context` has attribute `attribute` (non-zero); `what` names the
// capability and `fix` the way around it.
Status require_device_attribute(const Context& context, CUdevice_attribute attribute, const char* what,
                                const char* fix) {
    int value = 0;
    CUresult result = context.api().cuDeviceGetAttribute(&value, attribute, context.cu_device());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetAttribute", "check that the device is usable", "asking device %d for %s",
                       context.ordinal(), what);
    if (value != 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_UNSUPPORTED, fix, "device %d (%s) has no %s", context.ordinal(), context.info().name,
                what);
}

CUmemLocation driver_location(int32_t location) {
    CUmemLocation where{};
    where.type = location == CUABI_LOCATION_HOST ? CU_MEM_LOCATION_TYPE_HOST : CU_MEM_LOCATION_TYPE_DEVICE;
    where.id = location == CUABI_LOCATION_HOST ? 0 : location;
    return where;
}

}  // namespace

Status Buffer::create_managed(std::shared_ptr<Context> context, size_t size, uint32_t flags,
                              std::shared_ptr<Buffer>* out) {
    DeferredRelease::release_queued();
    Status status = check_fits_device(*context, size);
    if (status == CUABI_SUCCESS)
        status = require_device_attribute(*context, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, "managed memory",
                                          "allocate device memory with cuabi_buffer_create and copy explicitly");
    if (status == CUABI_SUCCESS) status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = context->api();
    unsigned int attach = (flags & CUABI_MANAGED_ATTACH_HOST) != 0 ? CU_MEM_ATTACH_HOST : CU_MEM_ATTACH_GLOBAL;
    CUdeviceptr address = 0;
    CUresult result = api.cuMemAllocManaged(&address, size, attach);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemAllocManaged", "allocate less, or free buffers that are no longer needed",
                       "for %zu bytes of managed memory on device %d (%s)", size, context->ordinal(),
                       context->info().name);
    std::shared_ptr<Buffer> created(new (std::nothrow) Buffer(context, address, size, Memory::Managed));
    if (!created) {
        api.cuMemFree(address);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a buffer object");
    }
    return finish_owned(std::move(created), 0, nullptr, out);
}

Status Buffer::host_pointer(void** out_pointer) const {
    if (memory_ != Memory::Managed)
        return fail(CUABI_ERROR_UNSUPPORTED,
                    "allocate the buffer with cuabi_buffer_create_managed, or move bytes with cuabi_buffer_read/_write",
                    "the buffer of %zu bytes is device memory, which the host cannot address", size_);
    *out_pointer = reinterpret_cast<void*>(static_cast<uintptr_t>(address_));
    return CUABI_SUCCESS;
}

Status Buffer::check_managed_range(size_t offset, size_t size, int32_t location, const char* operation) const {
    if (memory_ != Memory::Managed)
        return fail(CUABI_ERROR_UNSUPPORTED, "allocate the buffer with cuabi_buffer_create_managed",
                    "cannot %s a buffer of %zu bytes that is not managed memory", operation, size_);
    Status status = check_range(offset, size, size_, operation, "managed");
    if (status != CUABI_SUCCESS) return status;
    const DriverApi& api = context_->api();
    if (api.version < kManagedLocationDriver || api.cuMemPrefetchAsync == nullptr || api.cuMemAdvise == nullptr)
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.2 or newer",
                    "cannot %s managed memory: the CUDA driver (version %d.%d) predates CUDA 12.2's memory locations",
                    operation, api.version / 1000, (api.version % 1000) / 10);
    if (location == CUABI_LOCATION_HOST) return CUABI_SUCCESS;
    int count = 0;
    CUresult result = api.cuDeviceGetCount(&count);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetCount", "check the driver", "to check location %d", location);
    if (location >= count)
        return fail(CUABI_ERROR_INVALID_DEVICE, "pass a device ordinal below the device count, or CUABI_LOCATION_HOST",
                    "location %d is no device: this system has %d", location, count);
    return CUABI_SUCCESS;
}

Status Buffer::prefetch(size_t offset, size_t size, int32_t location, const Stream* stream) const {
    Status status = check_managed_range(offset, size, location, "prefetch");
    if (status != CUABI_SUCCESS || size == 0) return status;
    if ((status = require_device_attribute(*context_, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
                                           "concurrent managed access, which prefetching needs",
                                           "let the pages migrate on access instead of prefetching")) != CUABI_SUCCESS)
        return status;
    if ((status = prepare(stream)) != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuMemPrefetchAsync(address_ + offset, size, driver_location(location), 0,
                                                        submission_stream(stream));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemPrefetchAsync", "check that the location can hold managed memory",
                       "prefetching %zu bytes at offset %zu of a %zu-byte managed buffer to location %d", size, offset,
                       size_, location);
    return complete_if_synchronous(*context_, stream, "a prefetch");
}

Status Buffer::advise(size_t offset, size_t size, int32_t advice, int32_t location) const {
    Status status = check_managed_range(offset, size, location, "advise on");
    if (status != CUABI_SUCCESS || size == 0) return status;
    if ((status = context_->make_current()) != CUABI_SUCCESS) return status;
    CUresult result = context_->api().cuMemAdvise(address_ + offset, size, static_cast<CUmem_advise>(advice),
                                                 driver_location(location));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemAdvise",
                       "give location-dependent advice only for locations that can access managed memory",
                       "advice %d for %zu bytes at offset %zu of a %zu-byte managed buffer, location %d", advice, size,
                       offset, size_, location);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
