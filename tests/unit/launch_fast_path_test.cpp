// The launch fast path's checks (launch/fast_path.hpp) on synthetic devices. The fast path must
// never admit a launch that the general checks refuse, since it reports nothing itself; and it
// must admit the common launch, or it would be dead weight. Both are checked case by case and on
// a quarter of a million random launches around every limit. No GPU needed.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "cuabi/cuabi.h"
#include "launch/arguments.hpp"
#include "launch/fast_path.hpp"
#include "launch/geometry.hpp"
#include "synthetic_devices.hpp"

namespace cuabi {
namespace launch {
namespace {

KernelLimits kernel(uint32_t max_threads, uint32_t static_shared = 0) {
    KernelLimits limits;
    limits.max_threads_per_block = max_threads;
    limits.static_shared_bytes = static_shared;
    return limits;
}

// A layout of parameters of the given sizes, each aligned to its size (as nvcc lays them out).
struct Layout {
    std::vector<ParamSlot> slots;
    ParamLayout view;
    explicit Layout(const std::vector<uint32_t>& sizes, bool known = true) {
        uint32_t end = 0;
        for (uint32_t size : sizes) {
            uint32_t align = size >= 8 ? 8 : (size == 0 ? 1 : size);
            uint32_t offset = (end + align - 1) / align * align;
            slots.push_back({offset, size});
            end = offset + size;
        }
        view.known = known;
        view.slots = slots.data();
        view.count = static_cast<uint32_t>(sizes.size());
        view.total_bytes = end;
    }
};

LaunchConfig config(uint32_t gx, uint32_t bx, uint32_t shared = 0) {
    LaunchConfig c;
    c.grid[0] = gx;
    c.block[0] = bx;
    c.shared_memory_bytes = shared;
    return c;
}

// Values for an argument table matching `layout`.
struct Table {
    uint64_t storage[kFastParams + 8] = {};
    std::vector<cuabi_kernel_arg> args;
    explicit Table(const ParamLayout& layout) {
        for (uint32_t i = 0; i < layout.count; ++i) args.push_back({&storage[i], layout.slots[i].size});
    }
};

// Prepared as the kernel facts do it, opted in to the default 48 KiB. (FastPath holds an atomic,
// so it is neither copied nor moved.)
std::unique_ptr<FastPath> prepared(const DeviceLimits& device, const KernelLimits& limits, const ParamLayout& layout) {
    auto fast = std::make_unique<FastPath>();
    fast->eligible.store(prepare_fast_path(device, limits, layout, fast.get()));
    fast->opted_in_shared.store(48u * 1024u - limits.static_shared_bytes);
    return fast;
}

TEST(LaunchFastPath, AdmitsTheCommonLaunch) {
    Layout layout({8, 8, 4, 4});
    auto prepared_fast = prepared(hopper(), kernel(1024), layout.view);
    const FastPath& fast = *prepared_fast;
    ASSERT_TRUE(fast.eligible);
    EXPECT_EQ(fast.param_count, 4u);
    EXPECT_EQ(fast.param_bytes, 24u);
    EXPECT_EQ(fast.params[3].offset, 20u);
    EXPECT_TRUE(admits_shape(fast, config(1000, 256), fast.opted_in_shared.load()));
    LaunchConfig three_d = config(64, 8, 1024);
    three_d.grid[1] = three_d.grid[2] = 65535;
    three_d.block[1] = 8;
    three_d.block[2] = 16;
    EXPECT_TRUE(admits_shape(fast, three_d, fast.opted_in_shared.load()));
    Table table(layout.view);
    EXPECT_TRUE(admits_table(fast, table.args.data(), table.args.size()));
    unsigned char packed[24] = {};
    EXPECT_TRUE(admits_packed(fast, packed, sizeof packed));

    Layout none({});
    auto prepared_none = prepared(hopper(), kernel(1024), none.view);
    const FastPath& no_params = *prepared_none;
    ASSERT_TRUE(no_params.eligible);
    EXPECT_TRUE(admits_table(no_params, nullptr, 0));
    EXPECT_TRUE(admits_packed(no_params, nullptr, 0));
}

TEST(LaunchFastPath, RefusesEachKindOfBadLaunch) {
    Layout layout({8, 4});
    auto prepared_fast = prepared(hopper(), kernel(256, 1024), layout.view);
    const FastPath& fast = *prepared_fast;
    ASSERT_TRUE(fast.eligible);
    const uint32_t opted = fast.opted_in_shared.load();
    auto refuses_shape = [&](LaunchConfig c) { return !admits_shape(fast, c, opted); };
    EXPECT_TRUE(refuses_shape(config(0, 32)));                    // zero grid
    EXPECT_TRUE(refuses_shape(config(1, 0)));                     // zero block
    EXPECT_TRUE(refuses_shape(config(2147483648u, 32)));          // grid x over the device
    EXPECT_TRUE(refuses_shape(config(UINT32_MAX, 32)));           // ... far over
    LaunchConfig tall = config(1, 32);
    tall.grid[1] = 65536;
    EXPECT_TRUE(refuses_shape(tall));                             // grid y over the device
    LaunchConfig deep = config(1, 1);
    deep.block[2] = 65;
    EXPECT_TRUE(refuses_shape(deep));                             // block z over the device
    EXPECT_TRUE(refuses_shape(config(1, 512)));                   // over the kernel's 256 threads
    LaunchConfig square = config(1, 32);
    square.block[1] = 32;
    EXPECT_TRUE(refuses_shape(square));                           // 1024 threads: over the kernel
    EXPECT_TRUE(refuses_shape(config(1, 32, opted + 1)));         // not opted in yet
    auto opted_high_path = prepared(hopper(), kernel(256, 1024), layout.view);
    FastPath& opted_high = *opted_high_path;
    opted_high.opted_in_shared.store(UINT32_MAX);
    EXPECT_FALSE(admits_shape(opted_high, config(1, 32, 232448u - 1024u + 1u), UINT32_MAX));  // over the device
    EXPECT_TRUE(admits_shape(opted_high, config(1, 32, 232448u - 1024u), UINT32_MAX));       // at it

    Table table(layout.view);
    EXPECT_FALSE(admits_table(fast, table.args.data(), 1));        // too few
    EXPECT_FALSE(admits_table(fast, nullptr, 2));                  // no table
    table.args[1].size = 8;
    EXPECT_FALSE(admits_table(fast, table.args.data(), 2));        // wrong size
    table.args[1] = {nullptr, 4};
    EXPECT_FALSE(admits_table(fast, table.args.data(), 2));        // NULL value
    unsigned char packed[16] = {};
    EXPECT_FALSE(admits_packed(fast, packed, 16));                 // 12 bytes expected
    EXPECT_FALSE(admits_packed(fast, nullptr, 12));                // no buffer
    EXPECT_TRUE(admits_packed(fast, packed, 12));
}

TEST(LaunchFastPath, LeavesUnusualKernelsToTheGeneralPath) {
    Layout unknown({8}, false);
    EXPECT_FALSE(prepared(hopper(), kernel(1024), unknown.view)->eligible);
    Layout many(std::vector<uint32_t>(kFastParams + 1, 4));
    EXPECT_FALSE(prepared(hopper(), kernel(1024), many.view)->eligible);
    Layout most(std::vector<uint32_t>(kFastParams, 4));
    EXPECT_TRUE(prepared(hopper(), kernel(1024), most.view)->eligible);
    KernelLimits clustered = kernel(1024);
    clustered.required_cluster[0] = clustered.required_cluster[1] = clustered.required_cluster[2] = 2;
    Layout one({8});
    EXPECT_FALSE(prepared(hopper(), clustered, one.view)->eligible);
    EXPECT_FALSE(prepared(hopper(), kernel(1024, 232449u), one.view)->eligible);  // static shared over the device
    DeviceLimits huge_blocks = hopper();
    huge_blocks.max_block[0] = 1u << 20;
    EXPECT_FALSE(prepared(huge_blocks, kernel(1024), one.view)->eligible);
}

// Every limit is probed at 0, 1, limit - 1, limit, limit + 1 and beyond; whatever the fast path
// admits, every general check must accept, and for an eligible kernel whatever the general checks
// accept (within the opted-in shared memory) the fast path must admit.
TEST(LaunchFastPath, AgreesWithTheGeneralChecksOnRandomLaunches) {
    std::mt19937_64 random(20261123);
    auto pick = [&](uint32_t limit) -> uint32_t {
        switch (random() % 7) {
            case 0: return 0;
            case 1: return 1;
            case 2: return limit - 1;
            case 3: return limit;
            case 4: return limit + 1;
            case 5: return static_cast<uint32_t>(random());
            default: return limit == 0 ? 0 : 1 + static_cast<uint32_t>(random() % limit);
        }
    };
    size_t admitted = 0, refused = 0;
    for (int iteration = 0; iteration < 250000; ++iteration) {
        DeviceLimits device = hopper();
        for (int i = 0; i < 3; ++i) {
            device.max_grid[i] = 1 + static_cast<uint32_t>(random() % (i == 0 ? 2147483647u : 65535u));
            device.max_block[i] = 1 + static_cast<uint32_t>(random() % (random() % 16 == 0 ? 100000u : 1024u));
        }
        device.max_threads_per_block = 1 + static_cast<uint32_t>(random() % 2048);
        device.shared_per_block_optin = static_cast<uint32_t>(random() % 300000);
        KernelLimits limits = kernel(1 + static_cast<uint32_t>(random() % 2048),
                                     static_cast<uint32_t>(random() % 70000));
        std::vector<uint32_t> sizes(random() % 6);
        for (uint32_t& size : sizes) size = 1u << (random() % 5);
        Layout layout(sizes);
        FastPath fast;
        if (!prepare_fast_path(device, limits, layout.view, &fast)) continue;
        const uint32_t opted = static_cast<uint32_t>(random() % 250000);

        LaunchConfig c;
        Shape shape;
        for (int i = 0; i < 3; ++i) {
            shape.grid[i] = c.grid[i] = random() % 2 ? 1 : pick(device.max_grid[i]);
            shape.block[i] = c.block[i] = random() % 2 ? 1 : pick(device.max_block[i]);
        }
        shape.dynamic_shared_bytes = c.shared_memory_bytes = random() % 2 ? 0 : pick(fast.shared_room);
        Table table(layout.view);
        size_t count = table.args.size();
        if (random() % 8 == 0 && count > 0) table.args[random() % count].size += 1;
        if (random() % 8 == 0 && count > 0) table.args[random() % count].value = nullptr;
        if (random() % 8 == 0) count = random() % 6;

        Geometry geometry;
        const bool general =
            check_geometry("k", device, limits, shape, &geometry) == CUABI_SUCCESS &&
            check_shared_memory("k", device, limits, shape.dynamic_shared_bytes) == CUABI_SUCCESS &&
            check_cluster_shape("k", device, limits, shape) == CUABI_SUCCESS &&
            check_arguments("k", layout.view, count <= table.args.size() ? table.args.data() : nullptr, count) ==
                CUABI_SUCCESS;
        const bool fast_admits = admits_shape(fast, c, opted) &&
                                 admits_table(fast, count <= table.args.size() ? table.args.data() : nullptr, count);
        ASSERT_TRUE(!fast_admits || general) << "iteration " << iteration << ": the fast path admitted a launch "
                                             << "the general checks refuse: " << last_error_message();
        if (general && shape.dynamic_shared_bytes <= opted)
            ASSERT_TRUE(fast_admits) << "iteration " << iteration << ": the fast path refused a valid launch";
        (fast_admits ? admitted : refused) += 1;

        const size_t packed_size = random() % 2 ? layout.view.total_bytes : random() % 40;
        unsigned char packed[64] = {};
        const void* buffer = random() % 8 == 0 ? nullptr : packed;
        const bool packed_general = check_packed("k", layout.view, buffer, packed_size) == CUABI_SUCCESS;
        ASSERT_EQ(admits_packed(fast, buffer, packed_size), packed_general) << "iteration " << iteration;
    }
    // Both outcomes must be common, or the comparison above proved little.
    EXPECT_GT(admitted, 10000u);
    EXPECT_GT(refused, 10000u);
}

}  // namespace
}  // namespace launch
}  // namespace cuabi
