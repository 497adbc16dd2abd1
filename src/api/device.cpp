// Entry points of the driver/device part of the "Library" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/device_info.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "device/context.hpp"
#include "driver/driver_api.hpp"

using namespace cuabi;

namespace {

Status require_ordinal(int32_t ordinal) {
    if (ordinal >= 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_DEVICE, "pass a device ordinal from 0 to cuabi_device_get_count() - 1",
                "device ordinal %d is negative", ordinal);
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_driver_get_version(int32_t* out_version) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_version, "out_version");
    if (status != CUABI_SUCCESS) return status;
    const DriverApi* api = driver(&status);
    if (api == nullptr) return status;
    *out_version = api->version;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_device_get_count(int32_t* out_count) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_count, "out_count");
    if (status != CUABI_SUCCESS) return status;
    const DriverApi* api = driver(&status);
    if (api == nullptr) return status;
    int count = 0;
    CUresult result = api->cuDeviceGetCount(&count);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuDeviceGetCount", "check the driver installation (nvidia-smi)", "");
    if (count == 0)
        return fail(CUABI_ERROR_NO_DEVICE, "run on a machine with an NVIDIA GPU, or check CUDA_VISIBLE_DEVICES",
                    "the CUDA driver (version %d) loaded but reports no CUDA device", api->version);
    *out_count = count;
    return CUABI_SUCCESS;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_device_get_info(int32_t ordinal, cuabi_device_info* out_info) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_output(out_info, "out_info");
    if (status == CUABI_SUCCESS) status = require_ordinal(ordinal);
    if (status != CUABI_SUCCESS) return status;
    const DriverApi* api = driver(&status);
    if (api == nullptr) return status;
    DeviceInfo facts;
    status = query_device_info(*api, ordinal, &facts);
    if (status != CUABI_SUCCESS) return status;
    return write_output(public_device_info(facts), out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_device_get_attribute(int32_t ordinal, int32_t attribute, int32_t* out_value) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    Status status = require_pointer(out_value, "out_value");
    if (status == CUABI_SUCCESS) status = require_ordinal(ordinal);
    if (status != CUABI_SUCCESS) return status;
    if (attribute < 1)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a CU_DEVICE_ATTRIBUTE_* value from cuda.h (they start at 1)",
                    "attribute %d is not a CUdevice_attribute", attribute);
    const DriverApi* api = driver(&status);
    if (api == nullptr) return status;
    return query_device_attribute(*api, ordinal, attribute, out_value);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
