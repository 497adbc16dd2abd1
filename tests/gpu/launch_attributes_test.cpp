// Launch attributes of 1.1: per-launch priority and programmatic dependent launch (through
// cuLaunchKernelEx), kernel attributes a caller sets, and cluster occupancy.
#include <string>
#include <vector>

#include "launch_test_support.hpp"

namespace {

// `produce` writes x[i] = 3i + 7, then lets its dependents start; `consume` waits for it with the
// PTX that cudaGridDependencySynchronize() compiles to, then computes y[i] = x[i] + 1.
const char* const kDependentPair = R"(
extern "C" __global__ void produce(unsigned* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    long long start = clock64();
    while (clock64() - start < 200000) {}
    if (i < n) x[i] = 3u * i + 7u;
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
}
extern "C" __global__ void consume(const unsigned* x, unsigned* y, unsigned n) {
    asm volatile("griddepcontrol.wait;" ::: "memory");
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] + 1u;
}
)";

// Blocks of a cluster write their rank within it.
const char* const kClusterRank = R"(
extern "C" __global__ void cluster_rank(unsigned* out) {
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    if (threadIdx.x == 0) out[blockIdx.x] = rank;
}
)";

class LaunchAttributesTest : public LaunchTest {
protected:
    bool hopper() const { return info.compute_capability_major >= 9; }

    std::vector<uint32_t> read_words(cuabi_buffer* buffer, size_t count) {
        std::vector<uint32_t> words(count);
        EXPECT_OK(cuabi_buffer_read(buffer, 0, words.data(), count * sizeof(uint32_t), nullptr));
        return words;
    }
};

TEST_F(LaunchAttributesTest, PriorityLaunchesRunAndClampToTheDevicesRange) {
    cuabi_kernel* fill = kernel(kFillSource, "fill");
    ASSERT_NE(fill, nullptr);
    uint64_t address = 0;
    cuabi_buffer* out = buffer(256 * sizeof(uint32_t), &address);
    cuabi_stream* on = stream();
    for (int32_t priority : {-1000, -1, 0, 1000}) {
        SCOPED_TRACE(priority);
        uint32_t value = static_cast<uint32_t>(priority + 5000);
        cuabi_kernel_arg args[] = {{&address, sizeof address}, {&value, sizeof value}};
        cuabi_launch_config launch = config(2, 128, 0, CUABI_LAUNCH_PRIORITY);
        launch.priority = priority;
        launch.stream = on;
        ASSERT_OK(cuabi_launch(fill, &launch, args, 2));
        ASSERT_OK(cuabi_stream_synchronize(on));
        std::vector<uint32_t> words = read_words(out, 256);
        for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(words[i], value + i) << "at " << i;
    }
    // The same through the packed form and a synchronous launch on the per-thread stream.
    uint32_t value = 42;
    std::vector<uint8_t> packed = pack(fill, {{&address, sizeof address}, {&value, sizeof value}});
    cuabi_launch_config launch = config(2, 128, 0, CUABI_LAUNCH_PRIORITY);
    launch.priority = -1;
    ASSERT_OK(cuabi_launch_packed(fill, &launch, packed.data(), packed.size()));
    EXPECT_EQ(read_words(out, 256)[255], 42u + 255u);
}

TEST_F(LaunchAttributesTest, ProgrammaticDependentLaunchSeesWhatItsPredecessorWrote) {
    cuabi_kernel* produce = kernel(kDependentPair, "produce");
    cuabi_kernel* consume = kernel(kDependentPair, "consume");
    ASSERT_NE(produce, nullptr);
    ASSERT_NE(consume, nullptr);
    constexpr unsigned kN = 64 * 256;
    uint64_t x = 0, y = 0;
    buffer(kN * sizeof(uint32_t), &x);
    cuabi_buffer* result = buffer(kN * sizeof(uint32_t), &y);
    cuabi_stream* on = stream();
    unsigned n = kN;
    cuabi_kernel_arg produce_args[] = {{&x, sizeof x}, {&n, sizeof n}};
    cuabi_kernel_arg consume_args[] = {{&x, sizeof x}, {&y, sizeof y}, {&n, sizeof n}};
    cuabi_launch_config first = config(64, 256);
    first.stream = on;
    cuabi_launch_config dependent = config(64, 256, 0, CUABI_LAUNCH_PROGRAMMATIC_DEPENDENT);
    dependent.stream = on;
    if (!hopper()) {
        ASSERT_OK(cuabi_launch(produce, &first, produce_args, 2));
        EXPECT_STATUS_WITH_FIX(cuabi_launch(consume, &dependent, consume_args, 3), CUABI_ERROR_UNSUPPORTED);
        GTEST_SKIP() << "programmatic dependent launch needs sm_90; the device is sm_" << info.compute_capability_major
                     << info.compute_capability_minor;
    }
    for (int round = 0; round < 3; ++round) {
        ASSERT_OK(cuabi_launch(produce, &first, produce_args, 2));
        ASSERT_OK(cuabi_launch(consume, &dependent, consume_args, 3));
    }
    ASSERT_OK(cuabi_stream_synchronize(on));
    std::vector<uint32_t> words = read_words(result, kN);
    for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(words[i], 3u * i + 8u) << "at " << i;
}

TEST_F(LaunchAttributesTest, KernelAttributesAreCheckedAndApplied) {
    cuabi_kernel* fill = kernel(kFillSource, "fill");
    ASSERT_NE(fill, nullptr);
    EXPECT_OK(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, 50));
    EXPECT_OK(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, -1));
    EXPECT_OK(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, CUABI_CACHE_PREFER_SHARED));
    EXPECT_OK(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, CUABI_CACHE_PREFER_NONE));
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_SHARED_MEMORY_CARVEOUT, 101),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_CACHE_CONFIG, 4),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_set_attribute(fill, CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, 2),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_set_attribute(fill, 99, 0), CUABI_ERROR_INVALID_ARGUMENT);
    // The kernel still launches and computes with its attributes set.
    uint64_t address = 0;
    cuabi_buffer* out = buffer(128 * sizeof(uint32_t), &address);
    uint32_t value = 9;
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&value, sizeof value}};
    cuabi_launch_config launch = config(1, 128);
    ASSERT_OK(cuabi_launch(fill, &launch, args, 2));
    EXPECT_EQ(read_words(out, 128)[127], 9u + 127u);
}

TEST_F(LaunchAttributesTest, ClustersOf16NeedTheNonPortableAttribute) {
    cuabi_kernel* rank = kernel(kClusterRank, "cluster_rank");
    ASSERT_NE(rank, nullptr);
    cuabi_launch_config launch = config(32, 32);
    launch.cluster[0] = 2;
    launch.cluster[1] = launch.cluster[2] = 1;
    uint32_t clusters = 0;
    if (!hopper()) {
        EXPECT_STATUS_WITH_FIX(cuabi_kernel_get_max_active_clusters(rank, &launch, &clusters), CUABI_ERROR_LAUNCH_CLUSTER);
        EXPECT_STATUS_WITH_FIX(cuabi_kernel_set_attribute(rank, CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, 1),
                               CUABI_ERROR_UNSUPPORTED);
        GTEST_SKIP() << "clusters need sm_90";
    }
    ASSERT_OK(cuabi_kernel_get_max_active_clusters(rank, &launch, &clusters));
    EXPECT_GT(clusters, 0u);
    // Each cluster holds two blocks; an SM holds at most max_threads_per_multiprocessor / 32 of these.
    EXPECT_LE(uint64_t{clusters} * 2,
              uint64_t(info.multiprocessor_count) * uint64_t(info.max_threads_per_multiprocessor) / 32);
    cuabi_launch_config no_cluster = config(32, 32);
    EXPECT_STATUS_WITH_FIX(cuabi_kernel_get_max_active_clusters(rank, &no_cluster, &clusters),
                           CUABI_ERROR_LAUNCH_CLUSTER);

    uint64_t address = 0;
    cuabi_buffer* out = buffer(32 * sizeof(uint32_t), &address);
    cuabi_kernel_arg args[] = {{&address, sizeof address}};
    launch.cluster[0] = 16;
    EXPECT_STATUS_WITH_FIX(cuabi_launch(rank, &launch, args, 1), CUABI_ERROR_LAUNCH_CLUSTER);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("NON_PORTABLE_CLUSTER_SIZE"), std::string::npos)
        << cuabi_last_error_message();
    ASSERT_OK(cuabi_kernel_set_attribute(rank, CUABI_KERNEL_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE, 1));
    ASSERT_OK(cuabi_kernel_get_max_active_clusters(rank, &launch, &clusters));
    EXPECT_GT(clusters, 0u);
    ASSERT_OK(cuabi_launch(rank, &launch, args, 1));
    std::vector<uint32_t> ranks = read_words(out, 32);
    for (uint32_t block = 0; block < 32; ++block) EXPECT_EQ(ranks[block], block % 16) << "block " << block;
}

}  // namespace
