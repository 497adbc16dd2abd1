#include "device/memory_pool.hpp"

#include <cstring>
#include <new>

namespace cuabi {
namespace {

// CUABI_MEMORY_POOL_* (1..5) at index value - 1.
constexpr CUmemPool_attribute kAttributes[] = {
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH,
    CU_MEMPOOL_ATTR_USED_MEM_CURRENT, CU_MEMPOOL_ATTR_USED_MEM_HIGH};
static_assert(CUABI_MEMORY_POOL_RELEASE_THRESHOLD == 1 && CUABI_MEMORY_POOL_USED_HIGH == 5,
              "kAttributes is indexed by the CUABI_MEMORY_POOL_* value");

}  // namespace

Status MemoryPool::require_support(const Context& context) {
    int supported = 0;
    CUresult result =
        context.api().cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, context.cu_device());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetAttribute", "check that the device is usable",
                       "asking whether device %d has memory pools", context.ordinal());
    if (supported != 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_UNSUPPORTED, "allocate with cuabi_buffer_create instead",
                "device %d (%s) has no stream-ordered allocator (memory pools)", context.ordinal(),
                context.info().name);
}

Status MemoryPool::create(std::shared_ptr<Context> context, uint64_t max_size, uint64_t release_threshold,
                          std::shared_ptr<MemoryPool>* out) {
    Status status = require_support(*context);
    if (status != CUABI_SUCCESS) return status;
    if ((status = context->make_current()) != CUABI_SUCCESS) return status;
    CUmemPoolProps props;
    std::memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = context->ordinal();
    props.maxSize = static_cast<size_t>(max_size);
    CUmemoryPool pool = nullptr;
    CUresult result = context->api().cuMemPoolCreate(&pool, &props);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemPoolCreate", "check max_size (0 means the driver's limit)",
                       "for a pool on device %d with max_size %llu", context->ordinal(),
                       static_cast<unsigned long long>(max_size));
    const DriverApi& api = context->api();
    std::shared_ptr<MemoryPool> created(new (std::nothrow) MemoryPool(std::move(context), pool, true));
    if (!created) {
        api.cuMemPoolDestroy(pool);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a memory pool object");
    }
    if (release_threshold != 0 && (status = created->set_release_threshold(release_threshold)) != CUABI_SUCCESS)
        return status;  // `created` destroys the pool on return
    *out = std::move(created);
    return CUABI_SUCCESS;
}

Status MemoryPool::default_of(std::shared_ptr<Context> context, std::shared_ptr<MemoryPool>* out) {
    Status status = require_support(*context);
    if (status != CUABI_SUCCESS) return status;
    CUmemoryPool pool = nullptr;
    CUresult result = context->api().cuDeviceGetDefaultMemPool(&pool, context->cu_device());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetDefaultMemPool", "check that the device is usable", "for device %d",
                       context->ordinal());
    std::shared_ptr<MemoryPool> found(new (std::nothrow) MemoryPool(std::move(context), pool, false));
    if (!found) return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a memory pool object");
    *out = std::move(found);
    return CUABI_SUCCESS;
}

MemoryPool::~MemoryPool() {
    // The driver defers the destruction until allocations still out are freed; none are, since
    // every buffer of the pool keeps this object alive.
    if (owned_) context_->api().cuMemPoolDestroy(pool_);
}

Status MemoryPool::set_release_threshold(uint64_t bytes) const {
    cuuint64_t value = bytes;
    CUresult result = context_->api().cuMemPoolSetAttribute(pool_, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &value);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemPoolSetAttribute", "check that the pool is usable",
                       "setting the release threshold of a pool of device %d to %llu bytes", context_->ordinal(),
                       static_cast<unsigned long long>(bytes));
    return CUABI_SUCCESS;
}

Status MemoryPool::trim(uint64_t min_bytes_to_keep) const {
    // The driver counts in size_t; keeping more than that is keeping everything.
    size_t keep = min_bytes_to_keep > SIZE_MAX ? SIZE_MAX : static_cast<size_t>(min_bytes_to_keep);
    CUresult result = context_->api().cuMemPoolTrimTo(pool_, keep);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemPoolTrimTo", "check that the pool is usable",
                       "trimming a pool of device %d to %zu bytes", context_->ordinal(), keep);
    return CUABI_SUCCESS;
}

Status MemoryPool::attribute(int32_t attribute, uint64_t* out_value) const {
    cuuint64_t value = 0;
    CUresult result = context_->api().cuMemPoolGetAttribute(pool_, kAttributes[attribute - 1], &value);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuMemPoolGetAttribute", "check that the pool is usable",
                       "reading attribute %d of a pool of device %d", attribute, context_->ordinal());
    *out_value = value;
    return CUABI_SUCCESS;
}

}  // namespace cuabi
