#include "device/tensor_map.hpp"

#include <cstring>

#include "device/peer_access.hpp"

namespace cuabi {
namespace {

struct DataType {
    const char* name;
    uint32_t bytes;
    bool floating;
};

// Indexed by CUABI_TENSOR_DATA_* (the values of CUtensorMapDataType). The driver's sub-byte packed
// types (13 and up) are not offered: their rules count elements in bits.
constexpr DataType kDataTypes[] = {
    {"UINT8", 1, false},   {"UINT16", 2, false},       {"UINT32", 4, false},   {"INT32", 4, false},
    {"UINT64", 8, false},  {"INT64", 8, false},        {"FLOAT16", 2, true},   {"FLOAT32", 4, true},
    {"FLOAT64", 8, true},  {"BFLOAT16", 2, true},      {"FLOAT32_FTZ", 4, true}, {"TFLOAT32", 4, true},
    {"TFLOAT32_FTZ", 4, true},
};
constexpr int32_t kDataTypeCount = static_cast<int32_t>(sizeof kDataTypes / sizeof kDataTypes[0]);

constexpr uint64_t kMaxGlobalDim = uint64_t{1} << 32;
constexpr uint64_t kStrideLimit = uint64_t{1} << 40;
constexpr uint32_t kMaxBoxDim = 256;
constexpr uint32_t kMaxElementStride = 8;

unsigned long long u64(uint64_t value) { return static_cast<unsigned long long>(value); }

Status check_enum(const char* field, int32_t value, int32_t count, const char* constants) {
    if (value >= 0 && value < count) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, format("pass one of the %s constants", constants).c_str(),
                "%s is %d, not a known value (0 to %d)", field, value, count - 1);
}

// The widest inner box row, in bytes, that a swizzle mode allows (0: no limit).
uint32_t swizzle_span(int32_t swizzle) {
    switch (swizzle) {
        case CUABI_TENSOR_SWIZZLE_NONE: return 0;
        case CUABI_TENSOR_SWIZZLE_32B: return 32;
        case CUABI_TENSOR_SWIZZLE_64B: return 64;
        default: return 128;
    }
}

Status check_kinds(const TensorMapSpec& spec) {
    if (spec.data_type >= kDataTypeCount && spec.data_type <= 15)
        return fail(CUABI_ERROR_UNSUPPORTED, "use one of the CUABI_TENSOR_DATA_* types",
                    "data_type %d is one of the driver's sub-byte packed types, which cuabi "
                    "does not offer",
                    spec.data_type);
    Status status = check_enum("data_type", spec.data_type, kDataTypeCount, "CUABI_TENSOR_DATA_*");
    if (status == CUABI_SUCCESS) status = check_enum("interleave", spec.interleave, 3, "CUABI_TENSOR_INTERLEAVE_*");
    if (status == CUABI_SUCCESS) status = check_enum("swizzle", spec.swizzle, 7, "CUABI_TENSOR_SWIZZLE_*");
    if (status == CUABI_SUCCESS) status = check_enum("l2_promotion", spec.l2_promotion, 4, "CUABI_TENSOR_L2_PROMOTION_*");
    if (status == CUABI_SUCCESS) status = check_enum("oob_fill", spec.oob_fill, 2, "CUABI_TENSOR_OOB_FILL_*");
    if (status != CUABI_SUCCESS) return status;
    if (spec.rank < 1 || spec.rank > kTensorMapMaxRank)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "set rank to the tensor's number of dimensions, 1 to 5",
                    "rank is %u; a tensor map has 1 to %u dimensions", spec.rank,
                    kTensorMapMaxRank);
    if (spec.interleave != CUABI_TENSOR_INTERLEAVE_NONE && spec.rank < 3)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "use CUABI_TENSOR_INTERLEAVE_NONE, or describe at least 3 dimensions",
                    "an interleaved tensor map needs rank 3 or more, but rank is %u", spec.rank);
    if (spec.interleave == CUABI_TENSOR_INTERLEAVE_32B && spec.swizzle != CUABI_TENSOR_SWIZZLE_32B)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass swizzle CUABI_TENSOR_SWIZZLE_32B with CUABI_TENSOR_INTERLEAVE_32B",
                    "interleave CUABI_TENSOR_INTERLEAVE_32B needs swizzle CUABI_TENSOR_SWIZZLE_32B (1), but swizzle is "
                    "%d",
                    spec.swizzle);
    if (spec.oob_fill == CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA && !kDataTypes[spec.data_type].floating)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "use CUABI_TENSOR_OOB_FILL_ZERO for integer types",
                    "oob_fill CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA needs a floating-point data_type, but "
                    "data_type is %s",
                    kDataTypes[spec.data_type].name);
    return CUABI_SUCCESS;
}

Status check_dims(const TensorMapSpec& spec) {
    const DataType& type = kDataTypes[spec.data_type];
    for (uint32_t i = 0; i < spec.rank; ++i) {
        if (spec.global_dims[i] == 0 || spec.global_dims[i] > kMaxGlobalDim)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "give each dimension 1 to 2^32 elements",
                        "global_dims[%u] is %llu; each global dimension must be 1 to 2^32 (%llu)", i,
                        u64(spec.global_dims[i]), u64(kMaxGlobalDim));
        if (spec.box_dims[i] == 0 || spec.box_dims[i] > kMaxBoxDim)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "give each box dimension 1 to 256 elements (a larger tile takes "
                        "several boxes)",
                        "box_dims[%u] is %u; each box dimension must be 1 to %u", i, spec.box_dims[i], kMaxBoxDim);
        if (spec.element_strides[i] == 0 || spec.element_strides[i] > kMaxElementStride)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass element strides of 1 to 8 (1: every element)",
                        "element_strides[%u] is %u; each element stride must be 1 to %u", i, spec.element_strides[i],
                        kMaxElementStride);
    }
    uint32_t stride_multiple = spec.interleave == CUABI_TENSOR_INTERLEAVE_32B ? 32 : 16;
    for (uint32_t i = 0; i + 1 < spec.rank; ++i) {
        uint64_t stride = spec.global_strides[i];
        if (stride % stride_multiple != 0 || stride == 0)
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "pad each row (and each higher dimension) to a multiple of 16 bytes (32 with "
                        "CUABI_TENSOR_INTERLEAVE_32B)",
                        "global_strides[%u] (the byte stride of dimension %u) is %llu, not a non-zero multiple of %u",
                        i, i + 1, u64(stride), stride_multiple);
        if (stride >= kStrideLimit)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "keep every stride below 2^40 bytes (1 TiB)",
                        "global_strides[%u] is %llu bytes; strides must be below 2^40 (%llu)", i, u64(stride),
                        u64(kStrideLimit));
    }
    uint64_t inner_bytes = uint64_t{spec.box_dims[0]} * type.bytes;
    if (spec.interleave == CUABI_TENSOR_INTERLEAVE_NONE) {
        if (inner_bytes % 16 != 0)
            return fail(CUABI_ERROR_INVALID_ARGUMENT, "make box_dims[0] * element size a multiple of 16 bytes",
                        "box_dims[0] %u x %u-byte %s = %llu bytes, not a multiple of 16 (the box's inner dimension)",
                        spec.box_dims[0], type.bytes, type.name, u64(inner_bytes));
        uint32_t span = swizzle_span(spec.swizzle);
        if (span != 0 && inner_bytes > span)
            return fail(CUABI_ERROR_INVALID_ARGUMENT,
                        "narrow box_dims[0] or pick a wider swizzle (the box's inner dimension must fit the span)",
                        "box_dims[0] %u x %u-byte %s = %llu bytes exceeds the %u-byte span of swizzle %d", spec.box_dims[0],
                        type.bytes, type.name, u64(inner_bytes), span, spec.swizzle);
    }
    return CUABI_SUCCESS;
}

// Bytes from the tensor's first element to just past its last, or 0 when that exceeds 2^64.
unsigned __int128 tensor_extent(const TensorMapSpec& spec) {
    const uint32_t element = kDataTypes[spec.data_type].bytes;
    unsigned __int128 inner = static_cast<unsigned __int128>(spec.global_dims[0]) * element;
    // An interleaved row is stored in whole 16- or 32-byte chunks.
    uint32_t chunk = spec.interleave == CUABI_TENSOR_INTERLEAVE_16B   ? 16
                     : spec.interleave == CUABI_TENSOR_INTERLEAVE_32B ? 32
                                                                     : 1;
    inner = (inner + chunk - 1) / chunk * chunk;
    unsigned __int128 extent = inner;
    for (uint32_t i = 1; i < spec.rank; ++i)
        extent += static_cast<unsigned __int128>(spec.global_dims[i] - 1) * spec.global_strides[i - 1];
    return extent;
}

}  // namespace

Status check_tensor_map_rules(const TensorMapSpec& spec) {
    Status status = check_kinds(spec);
    return status == CUABI_SUCCESS ? check_dims(spec) : status;
}

Status check_tensor_map_placement(const TensorMapSpec& spec, uint64_t buffer_address, size_t buffer_size) {
    if (spec.offset > buffer_size)
        return fail(CUABI_ERROR_OUT_OF_BOUNDS, "pass an offset within the buffer",
                    "tensor map offset %llu lies past the end of the buffer of %zu bytes", u64(spec.offset),
                    buffer_size);
    uint64_t address = buffer_address + spec.offset;
    uint32_t alignment = spec.interleave == CUABI_TENSOR_INTERLEAVE_32B ? 32 : 16;
    if (address % alignment != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    format("start the tensor at an offset that makes its address a multiple of %u", alignment).c_str(),
                    "the tensor's address 0x%llx (buffer address 0x%llx + offset %llu) is not %u-byte aligned",
                    u64(address), u64(buffer_address), u64(spec.offset), alignment);
    unsigned __int128 extent = tensor_extent(spec);
    if (extent > buffer_size - spec.offset) {
        bool huge = extent >> 64 != 0;
        return fail(CUABI_ERROR_OUT_OF_BOUNDS,
                    "check global_dims and global_strides against the buffer's size (cuabi_buffer_get_size())",
                    "the tensor spans %s%llu bytes from offset %llu (global_dims and global_strides), past the end of "
                    "the buffer of %zu bytes",
                    huge ? "more than " : "", huge ? u64(UINT64_MAX) : u64(static_cast<uint64_t>(extent)),
                    u64(spec.offset), buffer_size);
    }
    return CUABI_SUCCESS;
}

Status encode_tensor_map(const Buffer& buffer, const TensorMapSpec& spec, uint64_t out_map[kTensorMapBytes / 8]) {
    Status status = check_tensor_map_rules(spec);
    if (status == CUABI_SUCCESS) status = check_tensor_map_placement(spec, buffer.address(), buffer.size());
    if (status != CUABI_SUCCESS) return status;
    const Context& context = buffer.context();
    if (context.info().compute_capability_major < 9)
        return fail(CUABI_ERROR_UNSUPPORTED, "use tensor maps on a device of compute capability 9.0 or later (Hopper)",
                    "tensor maps need compute capability 9.0, but the buffer is on %s, compute capability %d.%d",
                    device_label(context).c_str(), context.info().compute_capability_major,
                    context.info().compute_capability_minor);
    const DriverApi& api = context.api();
    if (api.cuTensorMapEncodeTiled == nullptr)
        return fail(CUABI_ERROR_UNSUPPORTED, "install a CUDA 12.0 or newer driver",
                    "the CUDA driver (version %d.%d) has no cuTensorMapEncodeTiled", api.version / 1000,
                    (api.version % 1000) / 10);
    if ((status = context.make_current()) != CUABI_SUCCESS) return status;
    CUtensorMap encoded;  // over-aligned, as the driver requires; the caller's copy need not be
    cuuint64_t dims[kTensorMapMaxRank], strides[kTensorMapMaxRank - 1];
    cuuint32_t box[kTensorMapMaxRank], steps[kTensorMapMaxRank];
    for (uint32_t i = 0; i < kTensorMapMaxRank; ++i) {
        dims[i] = spec.global_dims[i];
        box[i] = spec.box_dims[i];
        steps[i] = spec.element_strides[i];
        if (i + 1 < kTensorMapMaxRank) strides[i] = spec.global_strides[i];
    }
    CUresult result = api.cuTensorMapEncodeTiled(
        &encoded, static_cast<CUtensorMapDataType>(spec.data_type), spec.rank,
        reinterpret_cast<void*>(static_cast<uintptr_t>(buffer.address() + spec.offset)), dims, strides, box, steps,
        static_cast<CUtensorMapInterleave>(spec.interleave), static_cast<CUtensorMapSwizzle>(spec.swizzle),
        static_cast<CUtensorMapL2promotion>(spec.l2_promotion), static_cast<CUtensorMapFloatOOBfill>(spec.oob_fill));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuTensorMapEncodeTiled",
                       "report the parameters to the cuabi maintainers: cuabi's checks passed them",
                       "for a rank-%u %s tensor at offset %llu of a buffer on %s", spec.rank,
                       kDataTypes[spec.data_type].name, u64(spec.offset), device_label(context).c_str());
    static_assert(sizeof encoded == kTensorMapBytes, "CUtensorMap is 128 bytes");
    std::memcpy(out_map, &encoded, kTensorMapBytes);
    return CUABI_SUCCESS;
}

}  // namespace cuabi
