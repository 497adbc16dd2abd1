// The launch entry points refuse bad arguments before any GPU work: NULL and stale handles,
// NULL out-parameters, a malformed config -- and the launch structs keep their frozen layout.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <vector>

#include "compile/kernel.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace cuabi {
namespace {

struct StreamPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Stream;
};

// A kernel handle with nothing behind it. Only used where the call must fail before it reaches
// the kernel's context (a bad config or a stale stream).
class FakeKernel : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_EQ(publish(std::make_shared<Kernel>(nullptr, nullptr, nullptr, "fake", "fake"), &kernel), CUABI_SUCCESS);
    }
    void TearDown() override { cuabi_kernel_destroy(kernel); }
    cuabi_kernel* kernel = nullptr;
};

cuabi_kernel* destroyed_kernel() {
    cuabi_kernel* handle = nullptr;
    EXPECT_EQ(publish(std::make_shared<Kernel>(nullptr, nullptr, nullptr, "gone", "gone"), &handle), CUABI_SUCCESS);
    cuabi_kernel_destroy(handle);
    return handle;
}

TEST(LaunchStructs, LayoutIsFrozen) {
    EXPECT_EQ(offsetof(cuabi_launch_config, struct_size), 0u);
    EXPECT_EQ(offsetof(cuabi_launch_config, flags), 4u);
    EXPECT_EQ(offsetof(cuabi_launch_config, grid), 8u);
    EXPECT_EQ(offsetof(cuabi_launch_config, block), 20u);
    EXPECT_EQ(offsetof(cuabi_launch_config, cluster), 32u);
    EXPECT_EQ(offsetof(cuabi_launch_config, shared_memory_bytes), 44u);
    EXPECT_EQ(offsetof(cuabi_launch_config, stream), 48u);
    // 1.1 appended these; a 1.0 caller's struct_size (56) ends before them.
    EXPECT_EQ(offsetof(cuabi_launch_config, priority), 56u);
    EXPECT_EQ(offsetof(cuabi_launch_config, reserved), 60u);
    EXPECT_EQ(sizeof(cuabi_launch_config), 64u);
    EXPECT_EQ(offsetof(cuabi_kernel_arg, value), 0u);
    EXPECT_EQ(offsetof(cuabi_kernel_arg, size), 8u);
    EXPECT_EQ(sizeof(cuabi_kernel_arg), 16u);
}

TEST(LaunchStructs, InitFunctionEqualsTheInitMacroAndAcceptsNull) {
    cuabi_launch_config config, macro = CUABI_LAUNCH_CONFIG_INIT;
    std::memset(&config, 0xFF, sizeof config);
    cuabi_launch_config_init(sizeof config, &config);
    EXPECT_EQ(std::memcmp(&config, &macro, sizeof config), 0);
    EXPECT_EQ(config.struct_size, sizeof(cuabi_launch_config));
    EXPECT_EQ(config.grid[0], 1u);
    EXPECT_EQ(config.block[2], 1u);
    EXPECT_EQ(config.cluster[0], 0u);
    EXPECT_EQ(config.stream, nullptr);
    EXPECT_EQ(cuabi_launch_config_init(sizeof config, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST(LaunchApiArguments, NewFlagsAndFieldsOf11AreChecked) {
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.flags = 0x10;  // the first flag 1.1 does not know
    EXPECT_FAILS_WITH(cuabi_launch(nullptr, &config, nullptr, 0), CUABI_ERROR_INVALID_ARGUMENT, "0x10");
    config.flags = CUABI_LAUNCH_PRIORITY;
    config.reserved = 7;
    EXPECT_FAILS_WITH(cuabi_launch(nullptr, &config, nullptr, 0), CUABI_ERROR_INVALID_ARGUMENT, "reserved is 7");
    // A 1.0 caller's struct ends before priority and reserved: whatever follows it is not read.
    config.struct_size = offsetof(cuabi_launch_config, priority);
    config.flags = CUABI_LAUNCH_PRIORITY | CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT;
    EXPECT_FAILS_WITH(cuabi_launch(nullptr, &config, nullptr, 0), CUABI_ERROR_INVALID_HANDLE, "kernel");
    uint32_t clusters = 0;
    EXPECT_FAILS_WITH(cuabi_kernel_get_max_active_clusters(nullptr, &config, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_clusters is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_get_max_active_clusters(nullptr, nullptr, &clusters), CUABI_ERROR_INVALID_ARGUMENT,
                      "config is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_get_max_active_clusters(nullptr, &config, &clusters), CUABI_ERROR_INVALID_HANDLE,
                      "kernel");
    EXPECT_FAILS_WITH(cuabi_kernel_set_attribute(nullptr, CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, 1),
                      CUABI_ERROR_INVALID_HANDLE, "kernel");
}

TEST(LaunchApiArguments, NullAndStaleKernelsAreInvalidHandles) {
    uint8_t packed[8] = {};
    EXPECT_FAILS_WITH(cuabi_launch(nullptr, nullptr, nullptr, 0), CUABI_ERROR_INVALID_HANDLE, "kernel");
    EXPECT_FAILS_WITH(cuabi_launch_packed(nullptr, nullptr, packed, sizeof packed), CUABI_ERROR_INVALID_HANDLE, "kernel");
    cuabi_kernel* stale = destroyed_kernel();
    EXPECT_FAILS_WITH(cuabi_launch(stale, nullptr, nullptr, 0), CUABI_ERROR_INVALID_HANDLE, "kernel");
    size_t count = 0, offset = 0, size = 0;
    uint32_t blocks = 0, threads = 0;
    EXPECT_FAILS_WITH(cuabi_kernel_get_param_count(stale, &count), CUABI_ERROR_INVALID_HANDLE, "kernel");
    EXPECT_FAILS_WITH(cuabi_kernel_get_param_info(stale, 0, &offset, &size), CUABI_ERROR_INVALID_HANDLE, "kernel");
    EXPECT_FAILS_WITH(cuabi_kernel_get_max_active_blocks_per_sm(stale, 128, 0, &blocks), CUABI_ERROR_INVALID_HANDLE,
                      "kernel");
    EXPECT_FAILS_WITH(cuabi_kernel_suggest_block_size(stale, 0, &threads, &blocks), CUABI_ERROR_INVALID_HANDLE,
                      "kernel");
}

TEST(LaunchApiArguments, NullOutParametersAreRefused) {
    size_t value = 0;
    uint32_t blocks = 0;
    EXPECT_FAILS_WITH(cuabi_kernel_get_param_count(nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_count is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_get_param_info(nullptr, 0, nullptr, &value), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_offset is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_get_param_info(nullptr, 0, &value, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_size is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_get_max_active_blocks_per_sm(nullptr, 128, 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_blocks is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_suggest_block_size(nullptr, 0, nullptr, &blocks), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_block_threads is NULL");
    EXPECT_FAILS_WITH(cuabi_kernel_suggest_block_size(nullptr, 0, &blocks, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_min_grid_blocks is NULL");
}

TEST_F(FakeKernel, ConfigWithTooSmallStructSizeIsRefused) {
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.struct_size = 4;
    EXPECT_FAILS_WITH(cuabi_launch(kernel, &config, nullptr, 0), CUABI_ERROR_STRUCT_SIZE,
                      "cuabi_launch_config.struct_size is 4");
}

TEST_F(FakeKernel, ConfigFromANewerHeaderWithNonZeroTailIsRefused) {
    std::vector<unsigned char> bytes(sizeof(cuabi_launch_config) + 8, 0);
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    std::memcpy(bytes.data(), &config, sizeof config);
    bytes[sizeof config + 3] = 1;
    reinterpret_cast<cuabi_launch_config*>(bytes.data())->struct_size = static_cast<uint32_t>(bytes.size());
    EXPECT_FAILS_WITH(cuabi_launch(kernel, reinterpret_cast<cuabi_launch_config*>(bytes.data()), nullptr, 0),
                      CUABI_ERROR_STRUCT_SIZE, "not zero");
}

TEST_F(FakeKernel, UnknownFlagsAreRefused) {
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.flags = CUABI_LAUNCH_COOPERATIVE | 0x80u;
    EXPECT_FAILS_WITH(cuabi_launch(kernel, &config, nullptr, 0), CUABI_ERROR_INVALID_ARGUMENT,
                      "cuabi_launch_config.flags is 0x81; bits 0x80");
}

TEST_F(FakeKernel, StaleStreamInTheConfigIsAnInvalidHandle) {
    cuabi_stream* stale = nullptr;
    ASSERT_EQ(publish(std::make_shared<StreamPlaceholder>(), &stale), CUABI_SUCCESS);
    destroy_handle<StreamPlaceholder>(stale);
    cuabi_launch_config config = CUABI_LAUNCH_CONFIG_INIT;
    config.stream = stale;
    EXPECT_FAILS_WITH(cuabi_launch(kernel, &config, nullptr, 0), CUABI_ERROR_INVALID_HANDLE,
                      "cuabi_launch_config.stream");
    EXPECT_FAILS_WITH(cuabi_launch_packed(kernel, &config, nullptr, 0), CUABI_ERROR_INVALID_HANDLE,
                      "cuabi_launch_config.stream");
}

TEST(LaunchApiArguments, LaunchEntryPointsAreReachableThroughGetProcAddress) {
    for (const char* name : {"cuabi_launch", "cuabi_launch_packed", "cuabi_launch_config_init",
                             "cuabi_kernel_get_param_count", "cuabi_kernel_get_param_info",
                             "cuabi_kernel_get_max_active_blocks_per_sm", "cuabi_kernel_suggest_block_size"})
        EXPECT_NE(cuabi_get_proc_address(name), nullptr) << name;
}

}  // namespace
}  // namespace cuabi
