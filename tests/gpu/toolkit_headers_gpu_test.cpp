// Toolkit headers in real kernels, compiled with no include option (cuabi finds the toolkit's
// include directories itself) and checked against results computed on the host: a CUB block
// reduction, a cooperative grid sync, a cluster kernel with cooperative_groups and distributed
// shared memory, and half-precision arithmetic.
#include <cmath>
#include <cstring>
#include <numeric>
#include <vector>

#include "launch_test_support.hpp"

namespace {

const char* const kCubReduce = R"(
#include <cub/block/block_reduce.cuh>
extern "C" __global__ void block_sums(const int* in, int* out) {
    using Reduce = cub::BlockReduce<int, 256>;
    __shared__ typename Reduce::TempStorage scratch;
    int sum = Reduce(scratch).Sum(in[blockIdx.x * 256 + threadIdx.x]);
    if (threadIdx.x == 0) out[blockIdx.x] = sum;
}
)";

// Every block adds its part to a total, the whole grid waits, then every block reads the total:
// wrong without the grid-wide barrier.
const char* const kGridSync = R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void grid_total(const unsigned* in, unsigned* total, unsigned* seen) {
    cg::grid_group grid = cg::this_grid();
    atomicAdd(total, in[grid.thread_rank()]);
    grid.sync();
    if (threadIdx.x == 0) seen[blockIdx.x] = *total;
}
)";

// Block 1 of each cluster of two reads block 0's shared memory through the cluster.
const char* const kClusterExchange = R"(
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void exchange(unsigned* out) {
    __shared__ unsigned value;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) value = 1000u * blockIdx.x + 7u;
    cluster.sync();
    unsigned* partner = cluster.map_shared_rank(&value, cluster.block_rank() ^ 1u);
    if (threadIdx.x == 0) out[blockIdx.x] = *partner;
    cluster.sync();  // keep this block's shared memory alive until the partner has read it
}
)";

const char* const kHalf = R"(
#include <cuda_fp16.h>
extern "C" __global__ void fma_half2(const __half2* a, const __half2* b, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    __half2 r = __hfma2(a[i], b[i], __float2half2_rn(1.0f));
    out[2 * i] = __low2float(r);
    out[2 * i + 1] = __high2float(r);
}
)";

class ToolkitHeadersTest : public LaunchTest {
protected:
    template <typename T>
    cuabi_buffer* upload(const std::vector<T>& values, uint64_t* address) {
        cuabi_buffer* made = buffer(values.size() * sizeof(T), address);
        EXPECT_OK(cuabi_buffer_write(made, 0, values.data(), values.size() * sizeof(T), nullptr));
        return made;
    }
    template <typename T>
    std::vector<T> download(cuabi_buffer* from, size_t count) {
        std::vector<T> values(count);
        EXPECT_OK(cuabi_buffer_read(from, 0, values.data(), count * sizeof(T), nullptr));
        return values;
    }
};

TEST_F(ToolkitHeadersTest, CubBlockReduceSumsEachBlock) {
    cuabi_kernel* sums = kernel(kCubReduce, "block_sums");
    ASSERT_NE(sums, nullptr);
    constexpr unsigned kBlocks = 40;
    std::vector<int> in(kBlocks * 256);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<int>((i * 2654435761u) % 2001) - 1000;
    uint64_t in_address = 0, out_address = 0;
    upload(in, &in_address);
    cuabi_buffer* out = buffer(kBlocks * sizeof(int), &out_address);
    cuabi_kernel_arg args[] = {{&in_address, 8}, {&out_address, 8}};
    cuabi_launch_config launch = config(kBlocks, 256);
    ASSERT_OK(cuabi_launch(sums, &launch, args, 2));
    std::vector<int> got = download<int>(out, kBlocks);
    for (unsigned b = 0; b < kBlocks; ++b)
        EXPECT_EQ(got[b], std::accumulate(in.begin() + b * 256, in.begin() + (b + 1) * 256, 0)) << "block " << b;
}

TEST_F(ToolkitHeadersTest, CooperativeGridSyncSeesEveryBlocksWork) {
    cuabi_kernel* total = kernel(kGridSync, "grid_total");
    ASSERT_NE(total, nullptr);
    if (!info.cooperative_launch) GTEST_SKIP() << "the device has no cooperative launch";
    uint32_t per_sm = 0;
    ASSERT_OK(cuabi_kernel_get_max_active_blocks_per_sm(total, 128, 0, &per_sm));
    ASSERT_GT(per_sm, 0u);
    const uint32_t blocks = per_sm * static_cast<uint32_t>(info.multiprocessor_count);  // all resident
    std::vector<unsigned> in(blocks * 128);
    for (size_t i = 0; i < in.size(); ++i) in[i] = static_cast<unsigned>(i % 97);
    uint64_t in_address = 0, total_address = 0, seen_address = 0;
    upload(in, &in_address);
    cuabi_buffer* sum = buffer(sizeof(unsigned), &total_address);
    ASSERT_OK(cuabi_buffer_fill(sum, 0, 0, 4, 1, nullptr));
    cuabi_buffer* seen = buffer(blocks * sizeof(unsigned), &seen_address);
    cuabi_kernel_arg args[] = {{&in_address, 8}, {&total_address, 8}, {&seen_address, 8}};
    cuabi_launch_config launch = config(blocks, 128, 0, CUABI_LAUNCH_COOPERATIVE);
    ASSERT_OK(cuabi_launch(total, &launch, args, 3));
    const unsigned want = std::accumulate(in.begin(), in.end(), 0u);
    std::vector<unsigned> got = download<unsigned>(seen, blocks);
    for (uint32_t b = 0; b < blocks; ++b) ASSERT_EQ(got[b], want) << "block " << b << " passed the grid barrier early";
}

TEST_F(ToolkitHeadersTest, ClusterBlocksReadEachOthersSharedMemory) {
    cuabi_kernel* exchange = kernel(kClusterExchange, "exchange");
    ASSERT_NE(exchange, nullptr);
    if (info.compute_capability_major < 9) GTEST_SKIP() << "clusters need sm_90";
    constexpr unsigned kBlocks = 8;
    uint64_t out_address = 0;
    cuabi_buffer* out = buffer(kBlocks * sizeof(unsigned), &out_address);
    cuabi_kernel_arg args[] = {{&out_address, 8}};
    cuabi_launch_config launch = config(kBlocks, 64);
    launch.cluster[0] = 2;
    launch.cluster[1] = launch.cluster[2] = 1;
    ASSERT_OK(cuabi_launch(exchange, &launch, args, 1));
    std::vector<unsigned> got = download<unsigned>(out, kBlocks);
    for (unsigned b = 0; b < kBlocks; ++b) EXPECT_EQ(got[b], 1000u * (b ^ 1u) + 7u) << "block " << b;
}

TEST_F(ToolkitHeadersTest, HalfPrecisionFusedMultiplyAdd) {
    cuabi_kernel* fma = kernel(kHalf, "fma_half2");
    ASSERT_NE(fma, nullptr);
    constexpr unsigned kPairs = 512;
    // Small integers and halves: exact in half precision, so the results compare exactly.
    std::vector<uint16_t> a(2 * kPairs), b(2 * kPairs);
    auto half_bits = [](float f) {  // f is an integer in [-8, 8] or one of them plus 0.5
        uint32_t bits;
        std::memcpy(&bits, &f, 4);
        const uint32_t sign = (bits >> 16) & 0x8000u;
        if ((bits & 0x7FFFFFFFu) == 0) return static_cast<uint16_t>(sign);
        const int exponent = static_cast<int>((bits >> 23) & 0xFF) - 127 + 15;
        return static_cast<uint16_t>(sign | (exponent << 10) | ((bits >> 13) & 0x3FFu));
    };
    std::vector<float> fa(2 * kPairs), fb(2 * kPairs);
    for (unsigned i = 0; i < 2 * kPairs; ++i) {
        fa[i] = static_cast<float>(static_cast<int>(i % 17) - 8);
        fb[i] = static_cast<float>(static_cast<int>(i % 7) - 3) + 0.5f;
        a[i] = half_bits(fa[i]);
        b[i] = half_bits(fb[i]);
    }
    uint64_t a_address = 0, b_address = 0, out_address = 0;
    upload(a, &a_address);
    upload(b, &b_address);
    cuabi_buffer* out = buffer(2 * kPairs * sizeof(float), &out_address);
    unsigned n = kPairs;
    cuabi_kernel_arg args[] = {{&a_address, 8}, {&b_address, 8}, {&out_address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(kPairs / 128, 128);
    ASSERT_OK(cuabi_launch(fma, &launch, args, 4));
    std::vector<float> got = download<float>(out, 2 * kPairs);
    for (unsigned i = 0; i < 2 * kPairs; ++i) EXPECT_EQ(got[i], fa[i] * fb[i] + 1.0f) << "element " << i;
}

// The compile half of the above runs everywhere: without a GPU the headers must still be found.
TEST(ToolkitHeadersOffline, TheFourSourcesCompileWithNoIncludeOption) {
    for (const char* source : {kCubReduce, kGridSync, kClusterExchange, kHalf}) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.target = "sm_90";
        cuabi_module* module = nullptr;
        cuabi_status status = cuabi_module_compile_offline(source, &options, &module);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status) << "\n" << source;
        cuabi_module_destroy(module);
    }
}

}  // namespace
