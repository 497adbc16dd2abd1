// Contexts on a real device: the facts and limits are those of a CUDA GPU, several contexts live
// at once, synchronizations are counted, and a destroyed context handle is refused.
#include <cstring>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"

namespace {

using ContextTest = GpuTest;

TEST_F(ContextTest, DeviceFactsAndLimitsAreThoseOfACudaGpu) {
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    ASSERT_OK(cuabi_context_get_device_info(context, &info));
    EXPECT_EQ(info.struct_size, sizeof info);
    EXPECT_EQ(info.ordinal, 0);
    EXPECT_GT(std::strlen(info.name), 0u);
    EXPECT_GE(info.compute_capability_major, 5);  // CUDA 13 supports sm_75 and newer
    EXPECT_GE(info.compute_capability_minor, 0);
    EXPECT_GT(info.multiprocessor_count, 0);
    EXPECT_EQ(info.warp_size, 32);
    EXPECT_GT(info.total_memory_bytes, uint64_t{1} << 30);
    EXPECT_GE(info.max_threads_per_block, 1024);
    EXPECT_EQ(info.max_block_dim[0], 1024);
    EXPECT_EQ(info.max_block_dim[2], 64);
    EXPECT_EQ(info.max_grid_dim[0], 2147483647);
    EXPECT_EQ(info.max_grid_dim[1], 65535);
    EXPECT_EQ(info.max_shared_memory_per_block, 48 * 1024);
    EXPECT_GE(info.max_shared_memory_per_block_optin, info.max_shared_memory_per_block);
    EXPECT_GE(info.max_shared_memory_per_multiprocessor, info.max_shared_memory_per_block_optin);
    EXPECT_GE(info.max_registers_per_block, 32 * 1024);
    EXPECT_GE(info.max_threads_per_multiprocessor, info.max_threads_per_block);
    EXPECT_GT(info.max_blocks_per_multiprocessor, 0);
    EXPECT_EQ(info.cooperative_launch, 1u);
    if (info.compute_capability_major >= 9) EXPECT_EQ(info.cluster_launch, 1u);
    bool uuid_set = false;
    for (uint8_t byte : info.uuid) uuid_set |= byte != 0;
    EXPECT_TRUE(uuid_set);
}

TEST_F(ContextTest, DeviceInfoWithoutAContextMatchesTheContextsFacts) {
    cuabi_device_info from_context = CUABI_DEVICE_INFO_INIT, direct = CUABI_DEVICE_INFO_INIT;
    ASSERT_OK(cuabi_context_get_device_info(context, &from_context));
    ASSERT_OK(cuabi_device_get_info(0, &direct));
    EXPECT_EQ(std::memcmp(&from_context, &direct, sizeof direct), 0);
}

TEST_F(ContextTest, OrdinalsPastTheLastDeviceAreRefusedNamingTheCount) {
    int32_t count = 0;
    ASSERT_OK(cuabi_device_get_count(&count));
    cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
    options.device_ordinal = count;
    cuabi_context* other = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_context_create(&options, &other), CUABI_ERROR_INVALID_DEVICE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("device ordinal " + std::to_string(count)),
              std::string::npos)
        << cuabi_last_error_message();
    EXPECT_EQ(other, nullptr);
    cuabi_device_info info = CUABI_DEVICE_INFO_INIT;
    EXPECT_STATUS_WITH_FIX(cuabi_device_get_info(count + 100, &info), CUABI_ERROR_INVALID_DEVICE);
}

TEST_F(ContextTest, SeveralContextsLiveAtOnceAndShareTheDevicesPrimaryContext) {
    int32_t count = 0;
    ASSERT_OK(cuabi_device_get_count(&count));
    std::vector<cuabi_context*> contexts;
    for (int round = 0; round < 2; ++round) {
        for (int32_t ordinal = 0; ordinal < count; ++ordinal) {
            cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
            options.device_ordinal = ordinal;
            cuabi_context* created = nullptr;
            ASSERT_OK(cuabi_context_create(&options, &created));
            contexts.push_back(created);
        }
    }
    void* first_native = nullptr;
    void* again_native = nullptr;
    ASSERT_OK(cuabi_context_get_native(contexts[0], &first_native));
    ASSERT_OK(cuabi_context_get_native(contexts[static_cast<size_t>(count)], &again_native));
    EXPECT_NE(first_native, nullptr);
    EXPECT_EQ(first_native, again_native) << "two handles on device 0 use its one primary context";
    // Each works independently; destroy them interleaved.
    for (cuabi_context* each : contexts) {
        cuabi_buffer* buffer = nullptr;
        ASSERT_OK(cuabi_buffer_create(each, 64, nullptr, &buffer));
        EXPECT_OK(cuabi_buffer_fill(buffer, 0, 7, 4, 16, nullptr));
        cuabi_buffer_destroy(buffer);
        EXPECT_OK(cuabi_context_synchronize(each));
    }
    for (size_t i = 0; i < contexts.size(); i += 2) cuabi_context_destroy(contexts[i]);
    for (size_t i = 1; i < contexts.size(); i += 2) EXPECT_OK(cuabi_context_synchronize(contexts[i]));
    for (size_t i = 1; i < contexts.size(); i += 2) cuabi_context_destroy(contexts[i]);
}

TEST_F(ContextTest, SynchronizationsAreCounted) {
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    ASSERT_OK(cuabi_context_synchronize(context));
    ASSERT_OK(cuabi_context_synchronize(context));
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.synchronizations, before.synchronizations + 2);
    EXPECT_EQ(after.struct_size, sizeof after);
}

// cuabi_counters has had one size in every release: a smaller struct_size is no older header's,
// so it is refused (naming the released size) and nothing is written through it.
TEST_F(ContextTest, CountersStructOfASizeNoReleaseHadIsRefusedUntouched) {
    struct {
        cuabi_counters counters;
        uint64_t beyond;
    } caller;
    std::memset(&caller, 0xEE, sizeof caller);
    caller.counters.struct_size = 16;
    EXPECT_EQ(cuabi_context_get_counters(context, &caller.counters), CUABI_ERROR_STRUCT_SIZE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("144"), std::string::npos) << cuabi_last_error_message();
    EXPECT_EQ(caller.counters.struct_size, 16u);
    EXPECT_EQ(caller.counters.launches, 0xEEEEEEEEEEEEEEEEull) << "written through a refused struct";
    EXPECT_EQ(caller.beyond, 0xEEEEEEEEEEEEEEEEull);
}

TEST_F(ContextTest, DestroyedContextHandleIsRefused) {
    cuabi_context* gone = context;
    cuabi_context_destroy(context);
    context = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_context_synchronize(gone), CUABI_ERROR_INVALID_HANDLE);
    cuabi_buffer* buffer = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create(gone, 16, nullptr, &buffer), CUABI_ERROR_INVALID_HANDLE);
    cuabi_context_destroy(gone);  // twice is harmless
}

}  // namespace
