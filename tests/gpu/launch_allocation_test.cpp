// The launch hot path allocates nothing: after a kernel's first launch, table, packed,
// cooperative and large-shared-memory launches make no heap allocation in cuabi, and neither does
// a batch of the largest size (CUABI_LAUNCH_BATCH_MAX_ITEMS) mixing both argument forms.
//
// This file replaces the global operator new of the GPU test binary with one that counts calls made
// on a thread while that thread asks for counting. libcuabi's own allocations go through the same
// (interposed) operator new, so a count of zero around a burst of launches proves the claim for
// every C++ allocation in the library. Counting is off everywhere else, so other suites are
// unaffected.
#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "launch_test_support.hpp"

namespace {

std::atomic<long> g_counted_allocations{0};
thread_local bool t_counting = false;

void* allocate(std::size_t size) {
    if (t_counting) g_counted_allocations.fetch_add(1, std::memory_order_relaxed);
    void* memory = std::malloc(size == 0 ? 1 : size);
    if (memory == nullptr) throw std::bad_alloc();
    return memory;
}

// Counts the allocations made by `work` on this thread.
template <typename Work>
long allocations_during(Work work) {
    g_counted_allocations = 0;
    t_counting = true;
    work();
    t_counting = false;
    return g_counted_allocations.load();
}

}  // namespace

void* operator new(std::size_t size) { return allocate(size); }
void* operator new[](std::size_t size) { return allocate(size); }
void operator delete(void* memory) noexcept { std::free(memory); }
void operator delete[](void* memory) noexcept { std::free(memory); }
void operator delete(void* memory, std::size_t) noexcept { std::free(memory); }
void operator delete[](void* memory, std::size_t) noexcept { std::free(memory); }

namespace {

const char* const kSource = R"(
extern "C" __global__ void scale(float* data, float factor, unsigned int n) {
    extern __shared__ float scratch[];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { scratch[threadIdx.x] = data[i] * factor; data[i] = scratch[threadIdx.x]; }
}
)";

// The scale kernel over n floats on a stream of its own, with its arguments in both forms.
class LaunchAllocation : public LaunchTest {
protected:
    void SetUp() override {
        LaunchTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        kernel_ = kernel(kSource, "scale");
        ASSERT_NE(kernel_, nullptr);
        ASSERT_NE(buffer(n * sizeof(float), &address), nullptr);
        queue = stream();
        ASSERT_NE(queue, nullptr);
        std::memcpy(packed, &address, 8), std::memcpy(packed + 8, &factor, 4), std::memcpy(packed + 12, &n, 4);
    }

    const uint32_t n = 4096;
    const float factor = 1.0f;
    uint64_t address = 0;
    cuabi_kernel* kernel_ = nullptr;
    cuabi_stream* queue = nullptr;
    cuabi_kernel_arg args[3] = {{&address, 8}, {&factor, 4}, {&n, 4}};
    unsigned char packed[16] = {};
};

TEST_F(LaunchAllocation, CountingSeesAllocationsOnThisThread) {
    long counted = allocations_during([] { ::operator delete(::operator new(16)); });  // a call, not elidable
    EXPECT_EQ(counted, 1);
}

TEST_F(LaunchAllocation, LaunchesAfterTheFirstAllocateNothing) {
    cuabi_kernel* kernel = kernel_;
    cuabi_launch_config plain = config(n / 128, 128, 128 * sizeof(float));
    plain.stream = queue;
    cuabi_launch_config large = plain;
    large.shared_memory_bytes = 64 * 1024;  // above 48 KiB: opted in on the first launch only
    cuabi_launch_config cooperative = plain;
    cooperative.flags = CUABI_LAUNCH_COOPERATIVE;
    // First launches: facts, opt-in and occupancy answers are computed (and may allocate) here.
    ASSERT_OK(cuabi_launch(kernel, &plain, args, 3));
    ASSERT_OK(cuabi_launch(kernel, &large, args, 3));
    if (info.cooperative_launch) ASSERT_OK(cuabi_launch(kernel, &cooperative, args, 3));

    cuabi_status worst = CUABI_SUCCESS;
    long counted = allocations_during([&] {
        for (int i = 0; i < 300; ++i) {
            cuabi_status status = cuabi_launch(kernel, &plain, args, 3);
            if (status == CUABI_SUCCESS) status = cuabi_launch_packed(kernel, &plain, packed, sizeof packed);
            if (status == CUABI_SUCCESS) status = cuabi_launch(kernel, &large, args, 3);
            if (status == CUABI_SUCCESS && info.cooperative_launch) status = cuabi_launch(kernel, &cooperative, args, 3);
            if (status != CUABI_SUCCESS) worst = status;
        }
    });
    ASSERT_EQ(worst, CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(counted, 0) << "heap allocations on the launch path";
    ASSERT_OK(cuabi_stream_synchronize(queue));
}

TEST_F(LaunchAllocation, BatchesOfTheLargestSizeAllocateNothing) {
    cuabi_launch_config plain = config(n / 128, 128, 128 * sizeof(float));
    plain.stream = queue;
    std::vector<cuabi_launch_item> items(CUABI_LAUNCH_BATCH_MAX_ITEMS);
    for (size_t k = 0; k < items.size(); ++k) {
        items[k] = cuabi_launch_item{kernel_, &plain, args, 3, nullptr, 0};
        if (k % 2 == 1) items[k] = cuabi_launch_item{kernel_, &plain, nullptr, 0, packed, sizeof packed};
    }
    size_t submitted = 0;
    ASSERT_OK(cuabi_launch_batch(items.data(), 2, &submitted));  // the kernel's first launches
    cuabi_status status = CUABI_SUCCESS;
    long counted = allocations_during([&] { status = cuabi_launch_batch(items.data(), items.size(), &submitted); });
    ASSERT_EQ(status, CUABI_SUCCESS) << cuabi_last_error_message();
    EXPECT_EQ(submitted, items.size());
    EXPECT_EQ(counted, 0) << "heap allocations in a batch of " << items.size();
    ASSERT_OK(cuabi_stream_synchronize(queue));
}

}  // namespace
