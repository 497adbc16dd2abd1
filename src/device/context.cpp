#include "device/context.hpp"

#include <cstring>

namespace cuabi {
namespace {

Status device_for_ordinal(const DriverApi& api, int32_t ordinal, CUdevice* out) {
    int count = 0;
    CUresult result = api.cuDeviceGetCount(&count);
    if (result != CUDA_SUCCESS) return fail_cu(result, "cuDeviceGetCount", "check the driver installation (nvidia-smi)", "");
    if (ordinal < 0 || ordinal >= count)
        return fail(CUABI_ERROR_INVALID_DEVICE, "pass a device ordinal from 0 to cuabi_device_get_count() - 1",
                    "device ordinal %d is out of range; this machine has %d CUDA device%s", ordinal, count,
                    count == 1 ? "" : "s");
    result = api.cuDeviceGet(out, ordinal);
    if (result != CUDA_SUCCESS) return fail_cu(result, "cuDeviceGet", "check CUDA_VISIBLE_DEVICES", "for ordinal %d", ordinal);
    return CUABI_SUCCESS;
}

}  // namespace

Status query_device_info(const DriverApi& api, int32_t ordinal, DeviceInfo* out) {
    CUdevice device = 0;
    Status status = device_for_ordinal(api, ordinal, &device);
    if (status != CUABI_SUCCESS) return status;

    DeviceInfo info;
    info.ordinal = ordinal;
    CUresult result = api.cuDeviceGetName(info.name, sizeof info.name - 1, device);
    if (result != CUDA_SUCCESS) return fail_cu(result, "cuDeviceGetName", "check the driver installation", "for device %d", ordinal);
    CUuuid uuid{};
    result = api.cuDeviceGetUuid(&uuid, device);
    if (result != CUDA_SUCCESS) return fail_cu(result, "cuDeviceGetUuid", "check the driver installation", "for device %d", ordinal);
    std::memcpy(info.uuid, uuid.bytes, sizeof info.uuid);
    size_t total = 0;
    result = api.cuDeviceTotalMem(&total, device);
    if (result != CUDA_SUCCESS) return fail_cu(result, "cuDeviceTotalMem", "check the driver installation", "for device %d", ordinal);
    info.total_memory_bytes = total;

    struct AttributeField {
        CUdevice_attribute attribute;
        int32_t* field;
    };
    const AttributeField fields[] = {
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info.compute_capability_major},
        {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info.compute_capability_minor},
        {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info.multiprocessor_count},
        {CU_DEVICE_ATTRIBUTE_WARP_SIZE, &info.warp_size},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &info.max_threads_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, &info.max_block_dim[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y, &info.max_block_dim[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, &info.max_block_dim[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, &info.max_grid_dim[0]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, &info.max_grid_dim[1]},
        {CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, &info.max_grid_dim[2]},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK, &info.max_shared_memory_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, &info.max_shared_memory_per_block_optin},
        {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR, &info.max_shared_memory_per_multiprocessor},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, &info.max_registers_per_block},
        {CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, &info.max_registers_per_multiprocessor},
        {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, &info.max_threads_per_multiprocessor},
        {CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, &info.max_blocks_per_multiprocessor},
        {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, &info.pci_domain_id},
        {CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, &info.pci_bus_id},
        {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, &info.pci_device_id},
        {CU_DEVICE_ATTRIBUTE_CLOCK_RATE, &info.clock_rate_khz},
        {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info.memory_bus_width_bits},
        {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info.l2_cache_bytes},
    };
    for (const AttributeField& entry : fields) {
        result = api.cuDeviceGetAttribute(entry.field, entry.attribute, device);
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuDeviceGetAttribute", "check the driver installation", "(attribute %d) for device %d",
                           static_cast<int>(entry.attribute), ordinal);
    }
    int flag = 0;
    if (api.cuDeviceGetAttribute(&flag, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH, device) == CUDA_SUCCESS)
        info.cooperative_launch = flag != 0;
    flag = 0;
    if (api.cuDeviceGetAttribute(&flag, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH, device) == CUDA_SUCCESS)
        info.cluster_launch = flag != 0;
    *out = info;
    return CUABI_SUCCESS;
}

Status query_device_attribute(const DriverApi& api, int32_t ordinal, int32_t attribute, int32_t* out_value) {
    CUdevice device = 0;
    Status status = device_for_ordinal(api, ordinal, &device);
    if (status != CUABI_SUCCESS) return status;
    int value = 0;
    CUresult result = api.cuDeviceGetAttribute(&value, static_cast<CUdevice_attribute>(attribute), device);
    if (result == CUDA_ERROR_INVALID_VALUE)
        return fail_with_cu_result(CUABI_ERROR_INVALID_ARGUMENT, result,
                                   "pass a CU_DEVICE_ATTRIBUTE_* value from cuda.h that this driver supports "
                                   "(cuabi_driver_get_version() says which CUDA version it is)",
                                   "cuDeviceGetAttribute does not know attribute %d (driver version %d): %s",
                                   attribute, api.version, cu_result_text(result).c_str());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetAttribute", "check the driver installation (nvidia-smi)",
                       "(attribute %d) for device %d", attribute, ordinal);
    *out_value = value;
    return CUABI_SUCCESS;
}

Status Context::create(int32_t ordinal, std::shared_ptr<Context>* out) {
    Status status = CUABI_SUCCESS;
    const DriverApi* api = driver(&status);
    if (api == nullptr) return status;
    std::shared_ptr<Context> context(new (std::nothrow) Context());
    if (!context) return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a context");
    context->api_ = api;
    status = query_device_info(*api, ordinal, &context->info_);
    if (status != CUABI_SUCCESS) return status;
    status = device_for_ordinal(*api, ordinal, &context->device_);
    if (status != CUABI_SUCCESS) return status;
    CUresult result = api->cuDevicePrimaryCtxRetain(&context->context_, context->device_);
    if (result != CUDA_SUCCESS) {
        context->context_ = nullptr;
        return fail_cu(result, "cuDevicePrimaryCtxRetain",
                       "check that the device is not in exclusive-process mode held by another process (nvidia-smi)",
                       "for device %d (%s)", ordinal, context->info_.name);
    }
    *out = std::move(context);
    return CUABI_SUCCESS;
}

Context::~Context() {
    if (context_ != nullptr) api_->cuDevicePrimaryCtxRelease(device_);
}

Status Context::make_current() const {
    CUcontext current = nullptr;
    if (api_->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current == context_) return CUABI_SUCCESS;
    CUresult result = api_->cuCtxSetCurrent(context_);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuCtxSetCurrent", "check that the device is still available (nvidia-smi)",
                       "for device %d (%s)", info_.ordinal, info_.name);
    return CUABI_SUCCESS;
}

Status Context::synchronize() const {
    Status status = make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result = api_->cuCtxSynchronize(context_);
    Counters::bump(counters_.synchronizations);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuCtxSynchronize",
                       "an earlier kernel or copy on this device failed; check the work enqueued before it",
                       "on device %d (%s)", info_.ordinal, info_.name);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
