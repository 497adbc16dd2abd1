// Tiled tensor maps (TMA descriptors) over cuabi buffers.
//
// The driver's cuTensorMapEncodeTiled answers a broken rule with a bare CUDA_ERROR_INVALID_VALUE,
// so cuabi checks every rule it documents first, in two steps: the rules on the description alone
// (pure: no buffer, no driver), then where the tensor lies (its address's alignment and whether
// every element it spans is inside the buffer). Each failure names the rule and the values.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/error.hpp"
#include "device/buffer.hpp"

namespace cuabi {

constexpr uint32_t kTensorMapMaxRank = 5;
constexpr size_t kTensorMapBytes = 128;

// What cuabi_tensor_map_params says (src/api copies it here). Values are CUABI_TENSOR_*.
struct TensorMapSpec {
    int32_t data_type = 0;
    uint32_t rank = 0;
    int32_t interleave = 0;
    int32_t swizzle = 0;
    int32_t l2_promotion = 0;
    int32_t oob_fill = 0;
    uint64_t offset = 0;
    uint64_t global_dims[kTensorMapMaxRank] = {};
    uint64_t global_strides[kTensorMapMaxRank - 1] = {};
    uint32_t box_dims[kTensorMapMaxRank] = {};
    uint32_t element_strides[kTensorMapMaxRank] = {};
};

// INVALID_ARGUMENT for the first rule on the description that `spec` breaks.
Status check_tensor_map_rules(const TensorMapSpec& spec);

// For a spec that passed check_tensor_map_rules: INVALID_ARGUMENT when the tensor's address
// (buffer_address + offset) is misaligned, OUT_OF_BOUNDS when an element it spans lies past
// buffer_size bytes.
Status check_tensor_map_placement(const TensorMapSpec& spec, uint64_t buffer_address, size_t buffer_size);

// Checks everything, then encodes into out_map (kTensorMapBytes). UNSUPPORTED on a device before
// compute capability 9.0 or with a driver that lacks cuTensorMapEncodeTiled.
Status encode_tensor_map(const Buffer& buffer, const TensorMapSpec& spec, uint64_t out_map[kTensorMapBytes / 8]);

}  // namespace cuabi
