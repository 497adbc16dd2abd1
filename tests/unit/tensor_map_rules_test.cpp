// Every rule of a tiled tensor map is checked by cuabi before the driver sees it, each refusal
// naming the rule and the values. The rules on the description are reached through the public
// call (they come before the buffer handle, so no device is needed); the placement rules (the
// address's alignment, the tensor within the buffer) through device/tensor_map.hpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

#include "cuabi/cuabi.h"
#include "device/tensor_map.hpp"
#include "expect_status.hpp"

namespace cuabi {
namespace {

cuabi_buffer* made_up_buffer() { return reinterpret_cast<cuabi_buffer*>(uint64_t{4} << 56 | 4000002u); }

// A valid 2D float tensor of 64 x 32 elements, rows of 256 bytes, tiles of 32 x 8.
cuabi_tensor_map_params valid_2d() {
    cuabi_tensor_map_params p;
    EXPECT_EQ(cuabi_tensor_map_params_init(sizeof p, &p), CUABI_SUCCESS);
    p.rank = 2;
    p.global_dims[0] = 64;
    p.global_dims[1] = 32;
    p.global_strides[0] = 256;
    p.box_dims[0] = 32;
    p.box_dims[1] = 8;
    return p;
}

// `change` applied to valid_2d() must be refused with `expected`, the message naming `fragment`.
void expect_refused(const std::function<void(cuabi_tensor_map_params*)>& change, cuabi_status expected,
                    const char* fragment) {
    cuabi_tensor_map_params p = valid_2d();
    change(&p);
    cuabi_tensor_map map;
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), &p, &map), expected, fragment);
}

TEST(TensorMapRules, DefaultsAreFloat32WithUnitElementStridesAndNoRank) {
    cuabi_tensor_map_params p;
    ASSERT_EQ(cuabi_tensor_map_params_init(sizeof p, &p), CUABI_SUCCESS);
    EXPECT_EQ(p.struct_size, sizeof p);
    EXPECT_EQ(p.data_type, CUABI_TENSOR_DATA_FLOAT32);
    EXPECT_EQ(p.rank, 0u);
    for (uint32_t stride : p.element_strides) EXPECT_EQ(stride, 1u);
    cuabi_tensor_map map;
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), &p, &map), CUABI_ERROR_INVALID_ARGUMENT,
                      "rank is 0");
}

TEST(TensorMapRules, AValidDescriptionPassesTheRulesAndReachesTheBufferHandle) {
    cuabi_tensor_map_params p = valid_2d();
    cuabi_tensor_map map;
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), &p, &map), CUABI_ERROR_INVALID_HANDLE,
                      "buffer");
}

TEST(TensorMapRules, NullPointersAndReservedAreRefused) {
    cuabi_tensor_map_params p = valid_2d();
    cuabi_tensor_map map;
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), nullptr, &map), CUABI_ERROR_INVALID_ARGUMENT,
                      "params is NULL");
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), &p, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_map is NULL");
    expect_refused([](cuabi_tensor_map_params* q) { q->reserved = 3; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "reserved is 3");
    expect_refused([](cuabi_tensor_map_params* q) { q->struct_size = 7; }, CUABI_ERROR_STRUCT_SIZE,
                   "cuabi_tensor_map_params");
}

TEST(TensorMapRules, UnknownConstantsAreRefusedNamingTheField) {
    expect_refused([](cuabi_tensor_map_params* q) { q->data_type = 99; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "data_type is 99");
    expect_refused([](cuabi_tensor_map_params* q) { q->data_type = 14; }, CUABI_ERROR_UNSUPPORTED,
                   "data_type 14 is one of the driver's sub-byte packed types");
    expect_refused([](cuabi_tensor_map_params* q) { q->interleave = 3; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "interleave is 3");
    expect_refused([](cuabi_tensor_map_params* q) { q->swizzle = -1; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "swizzle is -1");
    expect_refused([](cuabi_tensor_map_params* q) { q->l2_promotion = 4; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "l2_promotion is 4");
    expect_refused([](cuabi_tensor_map_params* q) { q->oob_fill = 2; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "oob_fill is 2");
}

TEST(TensorMapRules, RankMustBeOneToFiveAndThreeWithInterleave) {
    expect_refused([](cuabi_tensor_map_params* q) { q->rank = 6; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "rank is 6; a tensor map has 1 to 5 dimensions");
    expect_refused([](cuabi_tensor_map_params* q) { q->interleave = CUABI_TENSOR_INTERLEAVE_16B; },
                   CUABI_ERROR_INVALID_ARGUMENT, "needs rank 3 or more, but rank is 2");
}

TEST(TensorMapRules, Interleave32NeedsSwizzle32) {
    expect_refused(
        [](cuabi_tensor_map_params* q) {
            q->rank = 3;
            q->global_dims[2] = 1;
            q->global_strides[1] = 8192;
            q->box_dims[2] = 1;
            q->interleave = CUABI_TENSOR_INTERLEAVE_32B;
        },
        CUABI_ERROR_INVALID_ARGUMENT, "needs swizzle CUABI_TENSOR_SWIZZLE_32B (1), but swizzle is 0");
}

TEST(TensorMapRules, NanFillOnlyForFloatingPointTypes) {
    expect_refused(
        [](cuabi_tensor_map_params* q) {
            q->data_type = CUABI_TENSOR_DATA_INT32;
            q->oob_fill = CUABI_TENSOR_OOB_FILL_NAN_REQUEST_ZERO_FMA;
        },
        CUABI_ERROR_INVALID_ARGUMENT, "needs a floating-point data_type, but data_type is INT32");
}

TEST(TensorMapRules, GlobalDimsMustBeOneTo2Pow32) {
    expect_refused([](cuabi_tensor_map_params* q) { q->global_dims[1] = 0; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "global_dims[1] is 0");
    expect_refused([](cuabi_tensor_map_params* q) { q->global_dims[0] = (uint64_t{1} << 32) + 1; },
                   CUABI_ERROR_INVALID_ARGUMENT, "global_dims[0] is 4294967297");
}

TEST(TensorMapRules, BoxDimsMustBeOneTo256) {
    expect_refused([](cuabi_tensor_map_params* q) { q->box_dims[1] = 257; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "box_dims[1] is 257; each box dimension must be 1 to 256");
    expect_refused([](cuabi_tensor_map_params* q) { q->box_dims[1] = 0; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "box_dims[1] is 0");
}

TEST(TensorMapRules, ElementStridesMustBeOneToEight) {
    expect_refused([](cuabi_tensor_map_params* q) { q->element_strides[1] = 9; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "element_strides[1] is 9; each element stride must be 1 to 8");
    expect_refused([](cuabi_tensor_map_params* q) { q->element_strides[0] = 0; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "element_strides[0] is 0");
}

TEST(TensorMapRules, StridesMustBeMultiplesOf16Below2Pow40) {
    expect_refused([](cuabi_tensor_map_params* q) { q->global_strides[0] = 260; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "global_strides[0] (the byte stride of dimension 1) is 260, not a non-zero multiple of 16");
    expect_refused([](cuabi_tensor_map_params* q) { q->global_strides[0] = 0; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "is 0, not a non-zero multiple of 16");
    expect_refused([](cuabi_tensor_map_params* q) { q->global_strides[0] = uint64_t{1} << 40; },
                   CUABI_ERROR_INVALID_ARGUMENT, "global_strides[0] is 1099511627776 bytes; strides must be below 2^40");
}

TEST(TensorMapRules, StridesMustBeMultiplesOf32WithInterleave32) {
    expect_refused(
        [](cuabi_tensor_map_params* q) {
            q->rank = 3;
            q->global_dims[2] = 2;
            q->global_strides[0] = 272;  // a multiple of 16, not of 32
            q->global_strides[1] = 8704;
            q->box_dims[0] = 8;
            q->box_dims[2] = 1;
            q->interleave = CUABI_TENSOR_INTERLEAVE_32B;
            q->swizzle = CUABI_TENSOR_SWIZZLE_32B;
        },
        CUABI_ERROR_INVALID_ARGUMENT, "global_strides[0] (the byte stride of dimension 1) is 272, not a non-zero "
                                      "multiple of 32");
}

TEST(TensorMapRules, StridesPastTheRankAreIgnored) {
    cuabi_tensor_map_params p = valid_2d();
    p.global_strides[1] = 3;  // would break the rule for dimension 2, which a rank-2 map lacks
    p.box_dims[4] = 999;
    cuabi_tensor_map map;
    EXPECT_FAILS_WITH(cuabi_tensor_map_encode_tiled(made_up_buffer(), &p, &map), CUABI_ERROR_INVALID_HANDLE,
                      "buffer");
}

TEST(TensorMapRules, InnerBoxBytesMustBeAMultipleOf16) {
    expect_refused([](cuabi_tensor_map_params* q) { q->box_dims[0] = 3; }, CUABI_ERROR_INVALID_ARGUMENT,
                   "box_dims[0] 3 x 4-byte FLOAT32 = 12 bytes, not a multiple of 16");
}

TEST(TensorMapRules, InnerBoxBytesMustFitTheSwizzleSpan) {
    expect_refused(
        [](cuabi_tensor_map_params* q) {
            q->box_dims[0] = 16;  // 64 bytes
            q->swizzle = CUABI_TENSOR_SWIZZLE_32B;
        },
        CUABI_ERROR_INVALID_ARGUMENT, "box_dims[0] 16 x 4-byte FLOAT32 = 64 bytes exceeds the 32-byte span of swizzle 1");
    expect_refused(
        [](cuabi_tensor_map_params* q) {
            q->box_dims[0] = 64;  // 256 bytes
            q->swizzle = CUABI_TENSOR_SWIZZLE_128B;
        },
        CUABI_ERROR_INVALID_ARGUMENT, "256 bytes exceeds the 128-byte span of swizzle 3");
}

// The placement rules need the buffer's address and size, so they are called directly.
TensorMapSpec valid_spec() {
    TensorMapSpec spec;
    spec.data_type = CUABI_TENSOR_DATA_FLOAT32;
    spec.rank = 2;
    spec.global_dims[0] = 64;
    spec.global_dims[1] = 32;
    spec.global_strides[0] = 256;
    spec.box_dims[0] = 32;
    spec.box_dims[1] = 8;
    for (uint32_t& step : spec.element_strides) step = 1;
    return spec;
}

constexpr uint64_t kAddress = 0x7f0000000000ull;

TEST(TensorMapPlacement, ATensorThatFillsItsBufferExactlyFits) {
    TensorMapSpec spec = valid_spec();
    ASSERT_EQ(check_tensor_map_rules(spec), CUABI_SUCCESS) << last_error_message();
    EXPECT_EQ(check_tensor_map_placement(spec, kAddress, 64 * 32 * 4), CUABI_SUCCESS) << last_error_message();
}

TEST(TensorMapPlacement, OneByteShortIsOutOfBounds) {
    EXPECT_FAILS_WITH(check_tensor_map_placement(valid_spec(), kAddress, 64 * 32 * 4 - 1), CUABI_ERROR_OUT_OF_BOUNDS,
                      "the tensor spans 8192 bytes from offset 0 (global_dims and global_strides), past the end of the "
                      "buffer of 8191 bytes");
}

TEST(TensorMapPlacement, TheOffsetCountsAgainstTheBuffer) {
    TensorMapSpec spec = valid_spec();
    spec.offset = 16;
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, 8192), CUABI_ERROR_OUT_OF_BOUNDS,
                      "spans 8192 bytes from offset 16");
    spec.offset = 9000;
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, 8192), CUABI_ERROR_OUT_OF_BOUNDS,
                      "offset 9000 lies past the end of the buffer of 8192 bytes");
}

TEST(TensorMapPlacement, PaddedRowsCountTheStrideNotTheRow) {
    TensorMapSpec spec = valid_spec();
    spec.global_strides[0] = 512;  // rows of 256 bytes padded to 512: 31 * 512 + 256 bytes
    EXPECT_EQ(check_tensor_map_placement(spec, kAddress, 31 * 512 + 256), CUABI_SUCCESS) << last_error_message();
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, 31 * 512 + 255), CUABI_ERROR_OUT_OF_BOUNDS,
                      "spans 16128 bytes");
}

TEST(TensorMapPlacement, AnExtentBeyond64BitsIsOutOfBoundsNotAWrap) {
    TensorMapSpec spec = valid_spec();
    spec.rank = 5;
    for (uint32_t i = 0; i < 5; ++i) {
        spec.global_dims[i] = uint64_t{1} << 32;
        spec.box_dims[i] = 8;
    }
    spec.box_dims[0] = 32;
    for (uint64_t& stride : spec.global_strides) stride = (uint64_t{1} << 40) - 16;
    ASSERT_EQ(check_tensor_map_rules(spec), CUABI_SUCCESS) << last_error_message();
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, SIZE_MAX), CUABI_ERROR_OUT_OF_BOUNDS,
                      "spans more than 18446744073709551615 bytes");
}

TEST(TensorMapPlacement, TheAddressMustBe16ByteAligned) {
    TensorMapSpec spec = valid_spec();
    spec.offset = 8;
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, 1 << 20), CUABI_ERROR_INVALID_ARGUMENT,
                      "the tensor's address 0x7f0000000008 (buffer address 0x7f0000000000 + offset 8) is not 16-byte "
                      "aligned");
    EXPECT_FAILS_WITH(check_tensor_map_placement(valid_spec(), kAddress + 4, 1 << 20), CUABI_ERROR_INVALID_ARGUMENT,
                      "is not 16-byte aligned");
}

TEST(TensorMapPlacement, Interleave32NeedsA32ByteAlignedAddress) {
    TensorMapSpec spec = valid_spec();
    spec.rank = 3;
    spec.global_dims[2] = 1;
    spec.global_strides[1] = 8192;
    spec.box_dims[2] = 1;
    spec.interleave = CUABI_TENSOR_INTERLEAVE_32B;
    spec.swizzle = CUABI_TENSOR_SWIZZLE_32B;
    ASSERT_EQ(check_tensor_map_rules(spec), CUABI_SUCCESS) << last_error_message();
    spec.offset = 16;
    EXPECT_FAILS_WITH(check_tensor_map_placement(spec, kAddress, 1 << 20), CUABI_ERROR_INVALID_ARGUMENT,
                      "is not 32-byte aligned");
}

}  // namespace
}  // namespace cuabi
