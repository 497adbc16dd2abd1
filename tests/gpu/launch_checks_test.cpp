// Every launch check, triggered on purpose on a real device, returns its own status and a message
// naming the kernel, the values and the limit -- and the launch just inside each limit runs.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "launch_test_support.hpp"

namespace {

class LaunchChecks : public LaunchTest {
protected:
    void SetUp() override {
        LaunchTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        fill = kernel(kFillSource, "fill");
        ASSERT_NE(fill, nullptr);
        out = buffer(1 << 20, &out_address);
        ASSERT_NE(out, nullptr);
    }

    cuabi_status launch_fill(const cuabi_launch_config& launch) {
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
        return cuabi_launch(fill, &launch, args, 2);
    }

    bool mentions(const std::string& fragment) {
        std::string text = message();
        if (text.find(fragment) != std::string::npos) return true;
        ADD_FAILURE() << "message lacks '" << fragment << "': " << text;
        return false;
    }

    cuabi_kernel* fill = nullptr;
    cuabi_buffer* out = nullptr;
    uint64_t out_address = 0;
    uint32_t value = 7;
};

TEST_F(LaunchChecks, GridDimensionsAreCheckedAgainstTheDevice) {
    cuabi_launch_config launch = config(1, 32);
    launch.grid[1] = static_cast<uint32_t>(info.max_grid_dim[1]) + 1;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_GRID);
    mentions("kernel 'fill': grid (1," + std::to_string(info.max_grid_dim[1] + 1) + ",1)");
    mentions("at most " + std::to_string(info.max_grid_dim[1]));
    launch.grid[1] = 0;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_GRID);
    mentions("has 0 in dimension y");
}

TEST_F(LaunchChecks, BlockThreadsAreCheckedAgainstTheDevice) {
    cuabi_launch_config launch = config(1, 1024);
    launch.block[1] = 2;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_BLOCK);
    mentions("block (1024,2,1) has 2048 threads; kernel 'fill' allows at most " +
             std::to_string(info.max_threads_per_block));
    launch.block[0] = 0;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_BLOCK);
}

TEST_F(LaunchChecks, LaunchBoundsKernelRejectsABlockTheDeviceAllows) {
    cuabi_kernel* bounded = kernel(kFillSource, "bounded");
    ASSERT_NE(bounded, nullptr);
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
    cuabi_launch_config launch = config(2, 256);
    EXPECT_STATUS_WITH_FIX(cuabi_launch(bounded, &launch, args, 2), CUABI_ERROR_LAUNCH_KERNEL_THREADS);
    mentions("kernel 'bounded' allows at most 128");
    launch.block[0] = 128;
    ASSERT_OK(cuabi_launch(bounded, &launch, args, 2));
    std::vector<uint32_t> result(256, 0);
    ASSERT_OK(cuabi_buffer_read(out, 0, result.data(), result.size() * 4, nullptr));
    for (uint32_t v : result) ASSERT_EQ(v, value);
}

TEST_F(LaunchChecks, SharedMemoryAboveTheOptInMaximumIsRefused) {
    cuabi_launch_config launch = config(1, 32, static_cast<uint32_t>(info.max_shared_memory_per_block_optin) + 1);
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_SHARED_MEMORY);
    mentions("allows at most " + std::to_string(info.max_shared_memory_per_block_optin) + " per block");
}

TEST_F(LaunchChecks, DynamicSharedMemoryAbove48KiBIsOptedInAndWorks) {
    if (info.max_shared_memory_per_block_optin <= 48 * 1024) GTEST_SKIP() << "the device has no shared memory opt-in";
    cuabi_kernel* rotate = kernel(kRotateSource, "rotate");
    ASSERT_NE(rotate, nullptr);
    for (uint32_t bytes : {100u * 1024u, 64u * 1024u, static_cast<uint32_t>(info.max_shared_memory_per_block_optin)}) {
        const uint32_t words = bytes / 4;
        ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, words, nullptr));
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&words, 4}};
        cuabi_launch_config launch = config(1, 256, bytes);
        ASSERT_OK(cuabi_launch(rotate, &launch, args, 2));
        std::vector<uint32_t> result(words);
        ASSERT_OK(cuabi_buffer_read(out, 0, result.data(), bytes, nullptr));
        for (uint32_t i = 0; i < words; ++i)
            ASSERT_EQ(result[i], ((i + words / 2) % words) * 2654435761u) << bytes << " bytes, word " << i;
    }
    cuabi_kernel_attributes attributes = CUABI_KERNEL_ATTRIBUTES_INIT;
    ASSERT_OK(cuabi_kernel_get_attributes(rotate, &attributes));
    EXPECT_GE(attributes.max_dynamic_shared_memory_bytes, info.max_shared_memory_per_block_optin);
}

TEST_F(LaunchChecks, ArgumentsAreCheckedAgainstTheKernelsParameters) {
    expect_argument_checks(fill, config(1, 32), out_address, value);
    EXPECT_NE(message().find("kernel 'fill'"), std::string::npos) << message();
}

TEST_F(LaunchChecks, RejectedLaunchesRunNothing) {
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, 64, nullptr));
    cuabi_launch_config launch = config(1, 64);
    cuabi_kernel_arg wrong[] = {{&out_address, 8}, {&out_address, 8}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(fill, &launch, wrong, 2), CUABI_ERROR_ARGUMENT_SIZE);
    ASSERT_OK(cuabi_context_synchronize(context));
    std::vector<uint32_t> result(64);
    ASSERT_OK(cuabi_buffer_read(out, 0, result.data(), 256, nullptr));
    for (uint32_t v : result) ASSERT_EQ(v, 0xA5A5A5A5u);
}

TEST_F(LaunchChecks, StaleKernelHandleIsAnInvalidHandle) {
    cuabi_kernel* doomed = nullptr;
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_compile(context, kFillSource, nullptr, &module));
    ASSERT_OK(cuabi_module_get_kernel(module, "fill", &doomed));
    cuabi_kernel_destroy(doomed);
    cuabi_module_destroy(module);
    cuabi_launch_config launch = config(1, 32);
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
    EXPECT_STATUS_WITH_FIX(cuabi_launch(doomed, &launch, args, 2), CUABI_ERROR_INVALID_HANDLE);
}

// An illegal address faults the context for good; the driver then refuses every launch. Run in a
// fresh process (threadsafe death test) so the fault does not poison the other tests.
class LaunchFailure : public LaunchChecks {
protected:
    // In the child process: fault the context, then launch again. Exits 0 when the second launch
    // is CUABI_ERROR_LAUNCH_FAILED with its CUresult and a message naming the kernel.
    void fault_then_launch() {
        cuabi_kernel* faulty = kernel("extern \"C\" __global__ void poke(int* p) { *(volatile int*)p = 1; }", "poke");
        uint64_t bad = 0x10;
        cuabi_kernel_arg args[] = {{&bad, 8}};
        cuabi_launch_config launch = config(1, 1);
        cuabi_status first = cuabi_launch(faulty, &launch, args, 1);  // synchronous: the fault shows here
        cuabi_status second = cuabi_launch(faulty, &launch, args, 1);
        std::string text = cuabi_last_error_message();
        int32_t cu_result = cuabi_last_cu_result();
        bool ok = first != CUABI_SUCCESS && second == CUABI_ERROR_LAUNCH_FAILED && cu_result != 0 &&
                  text.find("kernel 'poke'") != std::string::npos && text.find("Fix: ") != std::string::npos;
        if (!ok)
            std::fprintf(stderr, "first %s, second %s (CUresult %d): %s\n", cuabi_status_name(first),
                         cuabi_status_name(second), cu_result, text.c_str());
        std::fflush(stderr);
        std::_Exit(ok ? 0 : 1);  // no destructors: the context is faulted, nothing is worth cleaning up
    }
};

TEST_F(LaunchFailure, DriverRefusalIsLaunchFailedWithTheCUresult) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(fault_then_launch(), ::testing::ExitedWithCode(0), "");
}

// Grid-wide barrier by hand: every block waits until all have arrived. Only a cooperative launch
// guarantees they are resident together; the timeout keeps a wrong answer from hanging the test.
const char* const kBarrierSource = R"(
extern "C" __global__ void barrier(unsigned int* arrived, unsigned int* out, long long timeout_cycles) {
    if (threadIdx.x == 0) {
        unsigned int total = gridDim.x * gridDim.y * gridDim.z;
        atomicAdd(arrived, 1u);
        long long start = clock64();
        unsigned int seen = 0;
        while ((seen = atomicAdd(arrived, 0u)) < total && clock64() - start < timeout_cycles) {}
        out[blockIdx.x] = seen;
    }
}
)";

TEST_F(LaunchChecks, CooperativeGridAtTheResidencyLimitRunsAndOneBlockMoreIsRefused) {
    if (!info.cooperative_launch) GTEST_SKIP() << "the device has no cooperative launch";
    cuabi_kernel* barrier = kernel(kBarrierSource, "barrier");
    ASSERT_NE(barrier, nullptr);
    uint32_t per_sm = 0;
    ASSERT_OK(cuabi_kernel_get_max_active_blocks_per_sm(barrier, 256, 0, &per_sm));
    ASSERT_GT(per_sm, 0u);
    const uint32_t limit = per_sm * static_cast<uint32_t>(info.multiprocessor_count);
    uint64_t arrived_address = 0;
    cuabi_buffer* arrived = buffer(4, &arrived_address);
    ASSERT_NE(arrived, nullptr);
    ASSERT_OK(cuabi_buffer_fill(arrived, 0, 0, 4, 1, nullptr));
    long long timeout = 4000000000LL;
    cuabi_kernel_arg args[] = {{&arrived_address, 8}, {&out_address, 8}, {&timeout, 8}};

    cuabi_launch_config over = config(limit + 1, 256, 0, CUABI_LAUNCH_COOPERATIVE);
    EXPECT_STATUS_WITH_FIX(cuabi_launch(barrier, &over, args, 3), CUABI_ERROR_LAUNCH_COOPERATIVE);
    // Whichever check fires first (thread residency or occupancy), the fix names the same limit.
    mentions("launch at most " + std::to_string(limit) + " blocks");

    cuabi_launch_config at_limit = config(limit, 256, 0, CUABI_LAUNCH_COOPERATIVE);
    ASSERT_OK(cuabi_launch(barrier, &at_limit, args, 3));
    std::vector<uint32_t> seen(limit);
    ASSERT_OK(cuabi_buffer_read(out, 0, seen.data(), limit * 4, nullptr));
    for (uint32_t b = 0; b < limit; ++b) ASSERT_EQ(seen[b], limit) << "block " << b << " did not see every block arrive";
}

TEST_F(LaunchChecks, CooperativeGridAboveThreadResidencyIsRefusedBeforeAskingTheDriver) {
    if (!info.cooperative_launch) GTEST_SKIP() << "the device has no cooperative launch";
    const uint32_t fit = static_cast<uint32_t>(info.max_threads_per_multiprocessor) *
                         static_cast<uint32_t>(info.multiprocessor_count) / 1024;
    cuabi_launch_config launch = config(fit + 1, 1024, 0, CUABI_LAUNCH_COOPERATIVE);
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_COOPERATIVE);
    mentions("resident threads");
}

const char* const kClusterSource = R"(
extern "C" __global__ void cluster_ranks(unsigned int* out) {
    unsigned int rank, size;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(size));
    if (threadIdx.x == 0) { out[2 * blockIdx.x] = rank; out[2 * blockIdx.x + 1] = size; }
}
)";

TEST_F(LaunchChecks, ClustersRunOnHopperWithTheRequestedSize) {
    if (info.compute_capability_major < 9) GTEST_SKIP() << "thread block clusters need sm_90";
    cuabi_kernel* ranks = kernel(kClusterSource, "cluster_ranks");
    ASSERT_NE(ranks, nullptr);
    cuabi_kernel_arg args[] = {{&out_address, 8}};
    for (uint32_t cluster : {2u, 4u, 8u}) {
        const uint32_t grid = 8 * cluster;
        cuabi_launch_config launch = config(grid, 64);
        launch.cluster[0] = cluster, launch.cluster[1] = 1, launch.cluster[2] = 1;
        ASSERT_OK(cuabi_launch(ranks, &launch, args, 1));
        std::vector<uint32_t> result(2 * grid);
        ASSERT_OK(cuabi_buffer_read(out, 0, result.data(), result.size() * 4, nullptr));
        for (uint32_t b = 0; b < grid; ++b) {
            EXPECT_EQ(result[2 * b], b % cluster) << "block " << b << " of clusters of " << cluster;
            EXPECT_EQ(result[2 * b + 1], cluster) << "block " << b;
        }
    }
    cuabi_counters counters = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &counters));
    EXPECT_GE(counters.launches_cluster, 3u);
}

TEST_F(LaunchChecks, ClusterProblemsAreNamed) {
    if (info.compute_capability_major < 9) {
        cuabi_launch_config launch = config(4, 32);
        launch.cluster[0] = 2, launch.cluster[1] = 1, launch.cluster[2] = 1;
        EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_CLUSTER);
        mentions("compute capability 9.0");
        return;
    }
    cuabi_launch_config launch = config(6, 32);
    launch.cluster[0] = 4, launch.cluster[1] = 1, launch.cluster[2] = 1;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_CLUSTER);
    mentions("grid (6,1,1) is not a multiple of cluster (4,1,1)");
    launch.cluster[1] = 0;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_CLUSTER);
    launch = config(64, 32);
    launch.cluster[0] = 32, launch.cluster[1] = 1, launch.cluster[2] = 1;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_CLUSTER);
    mentions("blocks per cluster");
}

}  // namespace
