// Entry points of the "Tensor maps" group of cuabi.h.
#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "device/tensor_map.hpp"

using namespace cuabi;

namespace {

TensorMapSpec spec_from(const cuabi_tensor_map_params& params) {
    TensorMapSpec spec;
    spec.data_type = params.data_type;
    spec.rank = params.rank;
    spec.interleave = params.interleave;
    spec.swizzle = params.swizzle;
    spec.l2_promotion = params.l2_promotion;
    spec.oob_fill = params.oob_fill;
    spec.offset = params.offset;
    for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) {
        spec.global_dims[i] = params.global_dims[i];
        spec.box_dims[i] = params.box_dims[i];
        spec.element_strides[i] = params.element_strides[i];
        if (i + 1 < kTensorMapMaxRank) spec.global_strides[i] = params.global_strides[i];
    }
    return spec;
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_tensor_map_params_init(uint32_t struct_size, cuabi_tensor_map_params* out_params) try {
    return init_struct(struct_size, out_params);
} catch (...) {
    return guard::failed(__func__);
}

// The description's rules come before the buffer handle, so that they are checked (and testable)
// without a device.
CUABI_API cuabi_status cuabi_tensor_map_encode_tiled(cuabi_buffer* buffer, const cuabi_tensor_map_params* params,
                                                     cuabi_tensor_map* out_map) try {
    Status status = require_pointer(params, "params");
    if (status == CUABI_SUCCESS) status = require_pointer(out_map, "out_map");
    cuabi_tensor_map_params read;
    if (status == CUABI_SUCCESS) status = read_struct(params, &read);
    if (status != CUABI_SUCCESS) return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (cuabi_tensor_map_params_init does)",
                    "cuabi_tensor_map_params.reserved is %u", read.reserved);
    const TensorMapSpec spec = spec_from(read);
    if ((status = check_tensor_map_rules(spec)) != CUABI_SUCCESS) return status;
    return with_pinned<Buffer>(buffer, "buffer", [&](Buffer& covered) {
        uint64_t encoded[kTensorMapBytes / 8];
        Status encoding = encode_tensor_map(covered, spec, encoded);
        if (encoding == CUABI_SUCCESS) {
            static_assert(sizeof out_map->opaque == sizeof encoded, "cuabi_tensor_map holds a CUtensorMap");
            for (size_t i = 0; i < kTensorMapBytes / 8; ++i) out_map->opaque[i] = encoded[i];
        }
        return encoding;
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
