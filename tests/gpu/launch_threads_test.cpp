// Launches from many threads at once: eight threads, each on its own stream of one context, launch
// the same kernel hundreds of times on their own data and all results are right; the context's
// counters see every launch and synchronization by kind; occupancy helpers answer sensibly.
#include <atomic>
#include <random>
#include <thread>
#include <vector>

#include "launch_test_support.hpp"

namespace {

const char* const kStepSource = R"(
extern "C" __global__ void step(unsigned int* data, unsigned int n, unsigned int salt) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * 1664525u + salt;
}
)";

uint32_t step(uint32_t value, uint32_t salt) { return value * 1664525u + salt; }

class LaunchThreads : public LaunchTest {};

TEST_F(LaunchThreads, EightThreadsOnTheirOwnStreamsGetCorrectResults) {
    cuabi_kernel* kernel = this->kernel(kStepSource, "step");
    ASSERT_NE(kernel, nullptr);
    constexpr int kThreads = 8;
    constexpr uint32_t kLaunches = 200, kN = 4096 + 77;
    struct Lane {
        cuabi_stream* stream = nullptr;
        cuabi_buffer* data = nullptr;
        uint64_t address = 0;
        std::vector<uint32_t> initial;
    };
    std::vector<Lane> lanes(kThreads);
    for (int t = 0; t < kThreads; ++t) {
        lanes[t].stream = stream();
        lanes[t].data = buffer(kN * 4, &lanes[t].address);
        ASSERT_TRUE(lanes[t].stream != nullptr && lanes[t].data != nullptr);
        std::mt19937 random(100 + t);
        lanes[t].initial.resize(kN);
        for (uint32_t& v : lanes[t].initial) v = random();
        ASSERT_OK(cuabi_buffer_write(lanes[t].data, 0, lanes[t].initial.data(), kN * 4, nullptr));
    }
    cuabi_counters before = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));

    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            Lane& lane = lanes[t];
            cuabi_launch_config launch = config((kN + 127) / 128, 128);
            launch.stream = lane.stream;
            for (uint32_t i = 0; i < kLaunches; ++i) {
                uint32_t salt = static_cast<uint32_t>(t) * 1000003u + i;
                cuabi_kernel_arg args[] = {{&lane.address, 8}, {&kN, 4}, {&salt, 4}};
                // Alternate the two forms: both must be safe to use concurrently.
                cuabi_status status;
                if (i % 2 == 0) {
                    status = cuabi_launch(kernel, &launch, args, 3);
                } else {
                    uint8_t packed[16] = {};
                    std::memcpy(packed, &lane.address, 8);
                    std::memcpy(packed + 8, &kN, 4);
                    std::memcpy(packed + 12, &salt, 4);
                    status = cuabi_launch_packed(kernel, &launch, packed, sizeof packed);
                }
                if (status != CUABI_SUCCESS) {
                    ++failures;
                    ADD_FAILURE() << "thread " << t << " launch " << i << ": " << cuabi_failure_text(status);
                    return;
                }
            }
            if (cuabi_stream_synchronize(lane.stream) != CUABI_SUCCESS) ++failures;
        });
    for (std::thread& thread : threads) thread.join();
    ASSERT_EQ(failures.load(), 0);

    for (int t = 0; t < kThreads; ++t) {
        std::vector<uint32_t> result(kN);
        ASSERT_OK(cuabi_buffer_read(lanes[t].data, 0, result.data(), kN * 4, nullptr));
        for (uint32_t j = 0; j < kN; ++j) {
            uint32_t expected = lanes[t].initial[j];
            for (uint32_t i = 0; i < kLaunches; ++i) expected = step(expected, static_cast<uint32_t>(t) * 1000003u + i);
            ASSERT_EQ(result[j], expected) << "thread " << t << " element " << j;
        }
    }
    cuabi_counters after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.launches - before.launches, uint64_t{kThreads} * kLaunches);
    EXPECT_EQ(after.launches_packed - before.launches_packed, uint64_t{kThreads} * kLaunches / 2);
}

TEST_F(LaunchThreads, CountersSeeLaunchesByKindAndSynchronizations) {
    cuabi_kernel* kernel = this->kernel(kStepSource, "step");
    ASSERT_NE(kernel, nullptr);
    uint64_t address = 0;
    ASSERT_NE(buffer(1024 * 4, &address), nullptr);
    uint32_t n = 1024, salt = 1;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}, {&salt, 4}};
    cuabi_stream* queue = stream();
    ASSERT_NE(queue, nullptr);
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));

    cuabi_launch_config async = config(8, 128);
    async.stream = queue;
    ASSERT_OK(cuabi_launch(kernel, &async, args, 3));  // 1 launch, no synchronization
    cuabi_launch_config waited = async;
    waited.flags = CUABI_LAUNCH_SYNCHRONIZE;
    ASSERT_OK(cuabi_launch(kernel, &waited, args, 3));  // 1 launch, 1 synchronization
    cuabi_launch_config synchronous = config(8, 128);
    uint8_t packed[16] = {};
    std::memcpy(packed, &address, 8), std::memcpy(packed + 8, &n, 4), std::memcpy(packed + 12, &salt, 4);
    ASSERT_OK(cuabi_launch_packed(kernel, &synchronous, packed, sizeof packed));  // packed, 1 synchronization
    if (info.cooperative_launch) {
        cuabi_launch_config cooperative = async;
        cooperative.flags = CUABI_LAUNCH_COOPERATIVE;
        ASSERT_OK(cuabi_launch(kernel, &cooperative, args, 3));
    }
    // A rejected launch counts nothing.
    cuabi_launch_config rejected = async;
    rejected.grid[0] = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_launch(kernel, &rejected, args, 3), CUABI_ERROR_LAUNCH_GRID);
    ASSERT_OK(cuabi_context_get_counters(context, &after));

    const uint64_t cooperative = info.cooperative_launch ? 1 : 0;
    EXPECT_EQ(after.launches - before.launches, 3 + cooperative);
    EXPECT_EQ(after.launches_packed - before.launches_packed, 1u);
    EXPECT_EQ(after.launches_cooperative - before.launches_cooperative, cooperative);
    EXPECT_EQ(after.launches_cluster - before.launches_cluster, 0u);
    EXPECT_EQ(after.synchronizations - before.synchronizations, 2u);
    ASSERT_OK(cuabi_stream_synchronize(queue));
}

TEST_F(LaunchThreads, OccupancyHelpersAgreeWithTheKernelsLimits) {
    cuabi_kernel* kernel = this->kernel(kStepSource, "step");
    ASSERT_NE(kernel, nullptr);
    uint32_t block = 0, min_grid = 0, per_sm = 0;
    ASSERT_OK(cuabi_kernel_suggest_block_size(kernel, 0, &block, &min_grid));
    cuabi_kernel_attributes attributes = CUABI_KERNEL_ATTRIBUTES_INIT;
    ASSERT_OK(cuabi_kernel_get_attributes(kernel, &attributes));
    EXPECT_GT(block, 0u);
    EXPECT_LE(block, static_cast<uint32_t>(attributes.max_threads_per_block));
    EXPECT_EQ(block % static_cast<uint32_t>(info.warp_size), 0u);
    EXPECT_GE(min_grid, static_cast<uint32_t>(info.multiprocessor_count));
    ASSERT_OK(cuabi_kernel_get_max_active_blocks_per_sm(kernel, block, 0, &per_sm));
    EXPECT_GE(per_sm, 1u);
    EXPECT_LE(per_sm * block, static_cast<uint32_t>(info.max_threads_per_multiprocessor));
    // Asking twice gives the same (cached) answer.
    uint32_t again = 0;
    ASSERT_OK(cuabi_kernel_get_max_active_blocks_per_sm(kernel, block, 0, &again));
    EXPECT_EQ(again, per_sm);
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_get_max_active_blocks_per_sm(kernel, 4096, 0, &per_sm), CUABI_ERROR_LAUNCH_BLOCK);
    EXPECT_STATUS_WITH_FIX(
        cuabi_kernel_get_max_active_blocks_per_sm(kernel, 128, static_cast<uint32_t>(info.max_shared_memory_per_block_optin) + 1,
                                              &per_sm),
        CUABI_ERROR_LAUNCH_SHARED_MEMORY);
}

}  // namespace
