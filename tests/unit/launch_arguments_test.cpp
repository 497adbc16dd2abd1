// Kernel arguments against a parameter layout as cuFuncGetParamInfo reports it, in both the
// table and the packed form, and the reduced checks when the driver cannot report a layout.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "launch/arguments.hpp"

namespace cuabi {
namespace launch {
namespace {

// kernel(float* p, int n, double x, struct { char c; double d; } s): the layout a CUDA compiler
// gives it (the struct is 8-aligned, 16 bytes).
const ParamSlot kSlots[] = {{0, 8}, {8, 4}, {16, 8}, {24, 16}};

ParamLayout four_params() {
    ParamLayout layout;
    layout.known = true;
    layout.slots = kSlots;
    layout.count = 4;
    layout.total_bytes = 40;
    return layout;
}

ParamLayout no_params() {
    ParamLayout layout;
    layout.known = true;
    return layout;
}

ParamLayout unknown() { return ParamLayout{}; }

struct Values {
    uint64_t pointer = 0x7f0000001000ull;
    int32_t n = 3;
    double x = 2.5;
    struct {
        char c;
        double d;
    } s = {'a', 1.0};
};

std::vector<cuabi_kernel_arg> table_for(const Values& v) {
    return {{&v.pointer, 8}, {&v.n, 4}, {&v.x, 8}, {&v.s, sizeof v.s}};
}

TEST(LaunchArguments, AcceptsOneArgumentPerParameterOfTheRightSize) {
    Values v;
    std::vector<cuabi_kernel_arg> args = table_for(v);
    EXPECT_EQ(check_arguments("k", four_params(), args.data(), args.size()), CUABI_SUCCESS) << last_error_message();
}

TEST(LaunchArguments, RejectsANullTableWithACount) {
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), nullptr, 4), CUABI_ERROR_INVALID_ARGUMENT,
                      "kernel 'k': args is NULL but arg_count is 4");
}

TEST(LaunchArguments, AcceptsNoTableForAKernelWithoutParameters) {
    EXPECT_EQ(check_arguments("k", no_params(), nullptr, 0), CUABI_SUCCESS);
}

TEST(LaunchArguments, RejectsTooFewAndTooManyArguments) {
    Values v;
    std::vector<cuabi_kernel_arg> args = table_for(v);
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), args.data(), 3), CUABI_ERROR_ARGUMENT_COUNT,
                      "kernel 'k' takes 4 parameters but 3 arguments were given");
    args.push_back({&v.n, 4});
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), args.data(), args.size()), CUABI_ERROR_ARGUMENT_COUNT,
                      "takes 4 parameters but 5 arguments");
    EXPECT_FAILS_WITH(check_arguments("k", no_params(), args.data(), 1), CUABI_ERROR_ARGUMENT_COUNT,
                      "takes 0 parameters but 1 argument was given");
}

TEST(LaunchArguments, RejectsANullValueNamingItsIndex) {
    Values v;
    std::vector<cuabi_kernel_arg> args = table_for(v);
    args[1].value = nullptr;
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), args.data(), args.size()), CUABI_ERROR_INVALID_ARGUMENT,
                      "kernel 'k': args[1].value is NULL");
}

TEST(LaunchArguments, RejectsASizeThatDiffersFromTheParameter) {
    Values v;
    std::vector<cuabi_kernel_arg> args = table_for(v);
    int64_t wide = 3;
    args[1] = {&wide, 8};  // an int64_t where the kernel takes an int
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), args.data(), args.size()), CUABI_ERROR_ARGUMENT_SIZE,
                      "kernel 'k': args[1] is 8 bytes, but parameter 1 is 4 bytes (at offset 8)");
    EXPECT_NE(std::string(last_error_message()).find("int, float"), std::string::npos) << last_error_message();
    args = table_for(v);
    args[3].size = 12;  // a packed struct where the kernel's is padded
    EXPECT_FAILS_WITH(check_arguments("k", four_params(), args.data(), args.size()), CUABI_ERROR_ARGUMENT_SIZE,
                      "args[3] is 12 bytes, but parameter 3 is 16 bytes (at offset 24)");
}

TEST(LaunchArguments, RejectsMoreArgumentsThanTheTableHoldsAndPointsToPacked) {
    std::vector<ParamSlot> slots(kMaxTableArguments + 1);
    for (size_t i = 0; i < slots.size(); ++i) slots[i] = {static_cast<uint32_t>(4 * i), 4};
    ParamLayout layout;
    layout.known = true;
    layout.slots = slots.data();
    layout.count = static_cast<uint32_t>(slots.size());
    layout.total_bytes = static_cast<uint32_t>(4 * slots.size());
    int32_t value = 0;
    std::vector<cuabi_kernel_arg> args(slots.size(), cuabi_kernel_arg{&value, 4});
    EXPECT_FAILS_WITH(check_arguments("wide", layout, args.data(), args.size()), CUABI_ERROR_ARGUMENT_COUNT,
                      "257 arguments exceed the 256 that cuabi_launch() passes");
    EXPECT_NE(std::string(last_error_message()).find("cuabi_launch_packed"), std::string::npos);
}

TEST(LaunchArguments, WithoutALayoutOnlyNullValuesAndZeroSizesAreCaught) {
    Values v;
    std::vector<cuabi_kernel_arg> args = table_for(v);
    EXPECT_EQ(check_arguments("k", unknown(), args.data(), 2), CUABI_SUCCESS);
    args[0].size = 0;
    EXPECT_FAILS_WITH(check_arguments("k", unknown(), args.data(), args.size()), CUABI_ERROR_ARGUMENT_SIZE,
                      "args[0].size is 0");
    args[0] = {nullptr, 8};
    EXPECT_FAILS_WITH(check_arguments("k", unknown(), args.data(), args.size()), CUABI_ERROR_INVALID_ARGUMENT,
                      "args[0].value is NULL");
}

TEST(LaunchPacked, AcceptsExactlyTheParameterBytes) {
    std::vector<uint8_t> packed(40);
    EXPECT_EQ(check_packed("k", four_params(), packed.data(), 40), CUABI_SUCCESS) << last_error_message();
}

TEST(LaunchPacked, RejectsOtherSizesNamingTheLastParameter) {
    std::vector<uint8_t> packed(48);
    EXPECT_FAILS_WITH(check_packed("k", four_params(), packed.data(), 48), CUABI_ERROR_ARGUMENT_SIZE,
                      "kernel 'k': packed_size is 48, but its 4 parameters take 40 bytes (the last, parameter 3, is "
                      "16 bytes at offset 24)");
    EXPECT_FAILS_WITH(check_packed("k", four_params(), packed.data(), 36), CUABI_ERROR_ARGUMENT_SIZE,
                      "packed_size is 36");
    EXPECT_FAILS_WITH(check_packed("k", four_params(), nullptr, 0), CUABI_ERROR_ARGUMENT_SIZE, "packed_size is 0");
}

TEST(LaunchPacked, RejectsANullBufferOfNonZeroSize) {
    EXPECT_FAILS_WITH(check_packed("k", four_params(), nullptr, 40), CUABI_ERROR_INVALID_ARGUMENT,
                      "kernel 'k': packed is NULL but packed_size is 40");
    EXPECT_FAILS_WITH(check_packed("k", unknown(), nullptr, 16), CUABI_ERROR_INVALID_ARGUMENT, "packed is NULL");
}

TEST(LaunchPacked, AKernelWithoutParametersTakesNothing) {
    EXPECT_EQ(check_packed("k", no_params(), nullptr, 0), CUABI_SUCCESS);
    uint64_t stray = 0;
    EXPECT_FAILS_WITH(check_packed("k", no_params(), &stray, 8), CUABI_ERROR_ARGUMENT_SIZE,
                      "kernel 'k' takes no parameters but packed_size is 8");
}

TEST(LaunchPacked, WithoutALayoutAnyBufferIsPassedOn) {
    uint8_t bytes[24] = {};
    EXPECT_EQ(check_packed("k", unknown(), bytes, sizeof bytes), CUABI_SUCCESS);
    EXPECT_EQ(check_packed("k", unknown(), nullptr, 0), CUABI_SUCCESS);
}

// kernel(int n, const __grid_constant__ CUtensorMap map, float* out) as NVRTC 13.0 lays it out for
// sm_90 (its .nv.info parameter records): the map is 128 bytes at offset 48, since the parameter
// space begins at constant-bank offset 0x210 and the map needs a 64-byte aligned address there.
const ParamSlot kMapSlots[] = {{0, 4}, {48, 128}, {176, 8}};

ParamLayout map_params() {
    ParamLayout layout;
    layout.known = true;
    layout.slots = kMapSlots;
    layout.count = 3;
    layout.total_bytes = 184;
    return layout;
}

TEST(LaunchArguments, ATensorMapParameterTakesA128ByteValueAndSaysWhatItIs) {
    int32_t n = 1;
    cuabi_tensor_map map = {};
    uint64_t out = 0x7f0000002000ull;
    cuabi_kernel_arg args[] = {{&n, 4}, {&map, sizeof map}, {&out, 8}};
    EXPECT_EQ(check_arguments("k", map_params(), args, 3), CUABI_SUCCESS) << last_error_message();
    uint8_t half[64] = {};
    args[1] = {half, sizeof half};
    EXPECT_FAILS_WITH(check_arguments("k", map_params(), args, 3), CUABI_ERROR_ARGUMENT_SIZE,
                      "args[1] is 64 bytes, but parameter 1 is 128 bytes (at offset 48)");
    EXPECT_FAILS_WITH(check_arguments("k", map_params(), args, 3), CUABI_ERROR_ARGUMENT_SIZE,
                      "(e.g. a CUtensorMap: pass a cuabi_tensor_map)");
}

TEST(LaunchPacked, ATensorMapParameterCountsToItsAlignedEnd) {
    uint8_t packed[192] = {};
    EXPECT_EQ(check_packed("k", map_params(), packed, 184), CUABI_SUCCESS) << last_error_message();
    EXPECT_FAILS_WITH(check_packed("k", map_params(), packed, 176), CUABI_ERROR_ARGUMENT_SIZE,
                      "packed_size is 176, but its 3 parameters take 184 bytes (the last, parameter 2, is 8 bytes "
                      "at offset 176)");
}

}  // namespace
}  // namespace launch
}  // namespace cuabi
