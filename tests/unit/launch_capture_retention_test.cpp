// Which argument values a captured launch hands to the graph layer as possible buffer addresses
// (launch/capture_retention.hpp): every 8-byte argument of a table, every 8-byte parameter of a
// packed buffer at its offset, nothing else.
#include <gtest/gtest.h>

#include <cstring>

#include "launch/capture_retention.hpp"

namespace cuabi {
namespace launch {
namespace {

TEST(CaptureRetention, TableArgumentsOfEightBytesAreTheCandidates) {
    uint64_t first = 0x7f0000001000ull, second = 0x7f0000202000ull;
    uint32_t count = 12;
    struct {
        uint64_t pointer;
        uint32_t n;
    } hidden = {0x7f0000303000ull, 4};
    cuabi_kernel_arg args[] = {{&first, 8}, {&count, 4}, {&hidden, sizeof hidden}, {&second, 8}};
    uint64_t values[8] = {};
    ASSERT_EQ(pointer_sized_values(ParamLayout{}, args, 4, nullptr, values, 8), 2u);
    EXPECT_EQ(values[0], first);
    EXPECT_EQ(values[1], second);  // the struct's pointer is not seen: cuabi_graph_retain_buffer covers it
    EXPECT_EQ(pointer_sized_values(ParamLayout{}, args, 4, nullptr, values, 1), 1u) << "bounded by the capacity";
}

TEST(CaptureRetention, PackedArgumentsAreReadAtTheLayoutsOffsets) {
    ParamSlot slots[] = {{0, 4}, {8, 8}, {16, 16}, {32, 8}};
    ParamLayout layout;
    layout.known = true;
    layout.slots = slots;
    layout.count = 4;
    layout.total_bytes = 40;
    unsigned char packed[40] = {};
    const uint64_t a = 0xAAAA0000ull, b = 0xBBBB0000ull;
    std::memcpy(packed + 8, &a, 8);
    std::memcpy(packed + 32, &b, 8);
    uint64_t values[8] = {};
    ASSERT_EQ(pointer_sized_values(layout, nullptr, 0, packed, values, 8), 2u);
    EXPECT_EQ(values[0], a);
    EXPECT_EQ(values[1], b);
    layout.known = false;  // without the driver's layout a packed buffer has no known pointers
    EXPECT_EQ(pointer_sized_values(layout, nullptr, 0, packed, values, 8), 0u);
}

}  // namespace
}  // namespace launch
}  // namespace cuabi
