// Stream-ordered buffers and memory pools: allocations on a stream are ordinary buffers for every
// other call, a capture turns them into graph memory nodes that replay, and a pool's release
// threshold and trim show in its attributes.
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "graph_test_support.hpp"

namespace {

constexpr unsigned kCount = 1 << 16;
constexpr size_t kBytes = kCount * sizeof(float);
constexpr uint64_t kMiB = 1 << 20;

class StreamOrderedMemory : public GraphTest {
protected:
    void SetUp() override {
        GraphTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        int32_t pools = 0;
        ASSERT_OK(cuabi_device_get_attribute(0, 115 /* CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED */, &pools));
        if (pools == 0) GTEST_SKIP() << "device 0 has no stream-ordered allocator";
    }
    void TearDown() override {
        for (cuabi_memory_pool* pool : pools_) cuabi_memory_pool_destroy(pool);
        GraphTest::TearDown();
    }

    cuabi_buffer* allocate(size_t bytes, cuabi_stream* on, cuabi_memory_pool* from = nullptr) {
        cuabi_buffer* made = nullptr;
        EXPECT_OK(cuabi_buffer_create_async(context, bytes, from, nullptr, on, &made));
        return made;
    }
    cuabi_memory_pool* pool(uint64_t max_size, uint64_t release_threshold) {
        cuabi_memory_pool_options options = CUABI_MEMORY_POOL_OPTIONS_INIT;
        options.max_size = max_size;
        options.release_threshold = release_threshold;
        cuabi_memory_pool* made = nullptr;
        EXPECT_OK(cuabi_memory_pool_create(context, &options, &made));
        if (made != nullptr) pools_.push_back(made);
        return made;
    }
    static uint64_t attribute(cuabi_memory_pool* of, cuabi_memory_pool_attribute which) {
        uint64_t value = UINT64_MAX;
        EXPECT_OK(cuabi_memory_pool_get_attribute(of, which, &value));
        return value;
    }
    void scale_add_on(cuabi_stream* on, cuabi_buffer* out, cuabi_buffer* in, float a, float b) {
        uint64_t out_address = 0, in_address = 0;
        ASSERT_OK(cuabi_buffer_get_device_address(out, &out_address));
        ASSERT_OK(cuabi_buffer_get_device_address(in, &in_address));
        unsigned n = kCount;
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
        cuabi_launch_config launch = config(kCount / 256, 256);
        launch.stream = on;
        ASSERT_OK(cuabi_launch(scale_add, &launch, args, 5));
    }
    void expect_scaled(const std::vector<float>& got, const std::vector<float>& in, float a, float b) {
        ASSERT_EQ(got.size(), in.size());
        for (size_t i = 0; i < in.size(); ++i) ASSERT_EQ(got[i], a * in[i] + b) << "element " << i;
    }
    // A graph (made with `flags`) that allocates *out_kept and writes 3i + 1 into it, without freeing it.
    void capture_unfreed_allocation(uint32_t flags, cuabi_buffer** out_kept, cuabi_graph** out_graph) {
        ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        *out_kept = allocate(kCount * sizeof(uint32_t), capturing);
        ASSERT_NE(*out_kept, nullptr);
        uint64_t address = 0;
        ASSERT_OK(cuabi_buffer_get_device_address(*out_kept, &address));
        unsigned n = kCount;
        cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
        cuabi_launch_config launch = config(kCount / 256, 256);
        launch.stream = capturing;
        ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
        cuabi_graph_options options = CUABI_GRAPH_OPTIONS_INIT;
        options.flags = flags;
        ASSERT_OK(cuabi_graph_capture_end(capturing, &options, out_graph));
        keep(*out_graph);
    }
    void expect_indices(cuabi_buffer* written) {
        std::vector<uint32_t> got = read<uint32_t>(written, kCount);
        for (unsigned i = 0; i < kCount; ++i) ASSERT_EQ(got[i], 3u * i + 1u) << "element " << i;
    }

private:
    std::vector<cuabi_memory_pool*> pools_;
};

TEST_F(StreamOrderedMemory, AllocateLaunchFreeOnAStreamComputesTheResult) {
    cuabi_stream* on = stream();
    cuabi_buffer* in = allocate(kBytes, on);
    cuabi_buffer* out = allocate(kBytes, on);
    ASSERT_NE(in, nullptr);
    ASSERT_NE(out, nullptr);
    std::vector<float> values = random_floats(kCount, 11);
    ASSERT_OK(cuabi_buffer_write(in, 0, values.data(), kBytes, on));
    scale_add_on(on, out, in, 3.0f, 2.0f);
    std::vector<float> got(kCount, -1.0f);
    ASSERT_OK(cuabi_buffer_read(out, 0, got.data(), kBytes, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
    expect_scaled(got, values, 3.0f, 2.0f);
    // Bounds hold as for any buffer.
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_read(out, 4, got.data(), kBytes, on), CUABI_ERROR_OUT_OF_BOUNDS);
    ASSERT_OK(cuabi_buffer_free_async(in, on));
    ASSERT_OK(cuabi_buffer_free_async(out, on));
    // The handles died with the enqueued free.
    size_t size = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_get_size(out, &size), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_free_async(out, on), CUABI_ERROR_INVALID_HANDLE);
    ASSERT_OK(cuabi_stream_synchronize(on));
}

TEST_F(StreamOrderedMemory, ZeroFlagAndSynchronousFormWork) {
    cuabi_buffer_options options = CUABI_BUFFER_OPTIONS_INIT;
    options.flags = CUABI_BUFFER_ZERO;
    cuabi_buffer* zeroed = nullptr;
    ASSERT_OK(cuabi_buffer_create_async(context, 4096, nullptr, &options, nullptr, &zeroed));
    std::vector<uint8_t> bytes = poisoned(4096);
    ASSERT_OK(cuabi_buffer_read(zeroed, 0, bytes.data(), bytes.size(), nullptr));
    EXPECT_EQ(bytes, std::vector<uint8_t>(4096, 0));
    ASSERT_OK(cuabi_buffer_free_async(zeroed, nullptr));
}

TEST_F(StreamOrderedMemory, AllocateKernelFreeInACaptureReplaysThreeTimes) {
    uint64_t unused = 0;
    cuabi_buffer* in = buffer(kBytes, &unused);
    cuabi_buffer* out = buffer(kBytes, &unused);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    cuabi_buffer* scratch = allocate(kBytes, capturing);
    ASSERT_NE(scratch, nullptr);
    scale_add_on(capturing, scratch, in, 2.0f, 1.0f);
    scale_add_on(capturing, out, scratch, 1.0f, 3.0f);
    ASSERT_OK(cuabi_buffer_free_async(scratch, capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    size_t allocs = 0, frees = 0;
    for (size_t i = 0; i < count; ++i) {
        int32_t kind = node(graph, i).kind;
        allocs += kind == CUABI_GRAPH_NODE_MEM_ALLOC;
        frees += kind == CUABI_GRAPH_NODE_MEM_FREE;
    }
    EXPECT_EQ(allocs, 1u);
    EXPECT_EQ(frees, 1u);
    for (uint32_t round = 0; round < 3; ++round) {
        std::vector<float> values = random_floats(kCount, 100 + round);
        write(in, values);
        poison(out, kBytes);
        replay(graph, capturing);
        expect_scaled(read<float>(out, kCount), values, 2.0f, 4.0f);
    }
}

TEST_F(StreamOrderedMemory, AnUnfreedGraphAllocationRefusesTheNextReplayUntilFreed) {
    cuabi_buffer* kept = nullptr;
    cuabi_graph* graph = nullptr;
    capture_unfreed_allocation(CUABI_GRAPH_DEFAULT, &kept, &graph);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    // The replay's memory outlives the graph's launch: the handle reads what the kernel wrote.
    expect_indices(kept);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_launch(graph, capturing), CUABI_ERROR_GRAPH_MEMORY);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("cuabi_buffer_free_async"), std::string::npos);
    ASSERT_OK(cuabi_buffer_free_async(kept, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
}

TEST_F(StreamOrderedMemory, AutoFreeOnLaunchReplaysAnUnfreedAllocation) {
    cuabi_buffer* kept = nullptr;
    cuabi_graph* graph = nullptr;
    capture_unfreed_allocation(CUABI_GRAPH_AUTO_FREE_ON_LAUNCH, &kept, &graph);
    ASSERT_NE(graph, nullptr);
    for (int round = 0; round < 3; ++round) replay(graph, capturing);
    expect_indices(kept);
    // The last replay's allocation is the caller's to free.
    ASSERT_OK(cuabi_buffer_free_async(kept, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
}

TEST_F(StreamOrderedMemory, FreeRefusesMemoryItCannotFreeAndKeepsTheHandle) {
    uint64_t unused = 0;
    cuabi_buffer* plain = buffer(256, &unused);
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_free_async(plain, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    size_t size = 0;
    EXPECT_OK(cuabi_buffer_get_size(plain, &size));  // still valid

    // Allocated outside the capture: the driver frees only graph allocations inside one.
    cuabi_buffer* outside = allocate(256, capturing);
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_free_async(outside, capturing), CUABI_ERROR_INVALID_ARGUMENT);
    int32_t capture_status = -1;
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &capture_status));
    EXPECT_EQ(capture_status, CUABI_CAPTURE_STATUS_NONE) << "a failed call ends the capture cuabi began";
    EXPECT_OK(cuabi_buffer_get_size(outside, &size));

    // A graph that used the buffer keeps it: freeing it would leave the replays on freed memory.
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(outside, 0, 7, 1, 256, capturing));
    cuabi_graph* graph = nullptr;
    ASSERT_OK(cuabi_graph_capture_end(capturing, nullptr, &graph));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_free_async(outside, capturing), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("graph"), std::string::npos);
    cuabi_graph_destroy(graph);
    // The driver hands the graph's reference back on its own thread, a little after the destroy.
    cuabi_status freed = CUABI_ERROR_INVALID_ARGUMENT;
    for (int attempt = 0; attempt < 200 && freed == CUABI_ERROR_INVALID_ARGUMENT; ++attempt) {
        freed = cuabi_buffer_free_async(outside, capturing);
        if (freed == CUABI_ERROR_INVALID_ARGUMENT) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(freed, CUABI_SUCCESS) << cuabi_failure_text(freed);
    ASSERT_OK(cuabi_stream_synchronize(capturing));
}

TEST_F(StreamOrderedMemory, AGraphKeepsADestroyedStreamOrderedBufferAlive) {
    uint64_t unused = 0;
    cuabi_buffer* out = buffer(kBytes, &unused);
    cuabi_buffer* in = allocate(kBytes, capturing);
    std::vector<float> values = random_floats(kCount, 5);
    ASSERT_OK(cuabi_buffer_write(in, 0, values.data(), kBytes, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    scale_add_on(capturing, out, in, 1.0f, 1.0f);
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer_destroy(in);  // the graph still holds the memory
    cuabi_buffer* reuse = allocate(kBytes, capturing);  // may not be handed the retained memory
    ASSERT_OK(cuabi_buffer_fill(reuse, 0, 0, 4, kCount, capturing));
    replay(graph, capturing);
    expect_scaled(read<float>(out, kCount), values, 1.0f, 1.0f);
    ASSERT_OK(cuabi_buffer_free_async(reuse, capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
}

TEST_F(StreamOrderedMemory, PoolReleaseThresholdAndTrimShowInItsAttributes) {
    cuabi_memory_pool* kept = pool(0, 64 * kMiB);
    ASSERT_NE(kept, nullptr);
    EXPECT_EQ(attribute(kept, CUABI_MEMORY_POOL_RELEASE_THRESHOLD), 64 * kMiB);
    cuabi_stream* on = stream();
    cuabi_buffer* held = allocate(32 * kMiB, on, kept);
    ASSERT_NE(held, nullptr);
    ASSERT_OK(cuabi_stream_synchronize(on));
    EXPECT_GE(attribute(kept, CUABI_MEMORY_POOL_USED_CURRENT), 32 * kMiB);
    ASSERT_OK(cuabi_buffer_free_async(held, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
    // Below the threshold the pool keeps the memory for the next allocation.
    EXPECT_EQ(attribute(kept, CUABI_MEMORY_POOL_USED_CURRENT), 0u);
    EXPECT_GE(attribute(kept, CUABI_MEMORY_POOL_USED_HIGH), 32 * kMiB);
    EXPECT_GE(attribute(kept, CUABI_MEMORY_POOL_RESERVED_CURRENT), 32 * kMiB);
    EXPECT_GE(attribute(kept, CUABI_MEMORY_POOL_RESERVED_HIGH), 32 * kMiB);
    ASSERT_OK(cuabi_memory_pool_trim(kept, 0));
    EXPECT_EQ(attribute(kept, CUABI_MEMORY_POOL_RESERVED_CURRENT), 0u);

    // With a threshold of 0 a synchronization gives freed memory back.
    ASSERT_OK(cuabi_memory_pool_set_release_threshold(kept, 0));
    EXPECT_EQ(attribute(kept, CUABI_MEMORY_POOL_RELEASE_THRESHOLD), 0u);
    held = allocate(32 * kMiB, on, kept);
    ASSERT_OK(cuabi_buffer_free_async(held, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
    EXPECT_EQ(attribute(kept, CUABI_MEMORY_POOL_RESERVED_CURRENT), 0u);
}

TEST_F(StreamOrderedMemory, PoolMaxSizeBoundsAllocations) {
    cuabi_memory_pool* small = pool(32 * kMiB, 0);
    ASSERT_NE(small, nullptr);
    cuabi_stream* on = stream();
    cuabi_buffer* too_big = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create_async(context, 64 * kMiB, small, nullptr, on, &too_big),
                           CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(too_big, nullptr);
    cuabi_buffer* fits = allocate(16 * kMiB, on, small);
    ASSERT_NE(fits, nullptr);
    ASSERT_OK(cuabi_buffer_free_async(fits, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
}

TEST_F(StreamOrderedMemory, TheDefaultPoolServesANullPool) {
    cuabi_memory_pool* fallback = nullptr;
    ASSERT_OK(cuabi_memory_pool_get_default(context, &fallback));
    cuabi_stream* on = stream();
    uint64_t before = attribute(fallback, CUABI_MEMORY_POOL_USED_CURRENT);
    cuabi_buffer* held = allocate(8 * kMiB, on);
    ASSERT_OK(cuabi_stream_synchronize(on));
    EXPECT_GE(attribute(fallback, CUABI_MEMORY_POOL_USED_CURRENT), before + 8 * kMiB);
    ASSERT_OK(cuabi_buffer_free_async(held, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
    // Destroying the handle leaves the driver's pool usable.
    cuabi_memory_pool_destroy(fallback);
    held = allocate(4096, on);
    ASSERT_NE(held, nullptr);
    ASSERT_OK(cuabi_buffer_free_async(held, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
}

TEST_F(StreamOrderedMemory, APoolOutlivesItsHandleWhileItsBuffersLive) {
    cuabi_memory_pool* created = nullptr;
    ASSERT_OK(cuabi_memory_pool_create(context, nullptr, &created));
    cuabi_stream* on = stream();
    cuabi_buffer* held = nullptr;
    ASSERT_OK(cuabi_buffer_create_async(context, 4096, created, nullptr, on, &held));
    cuabi_memory_pool_destroy(created);
    ASSERT_OK(cuabi_buffer_fill(held, 0, 0x11, 1, 4096, on));
    std::vector<uint8_t> bytes(4096);
    ASSERT_OK(cuabi_buffer_read(held, 0, bytes.data(), bytes.size(), on));
    EXPECT_EQ(bytes, std::vector<uint8_t>(4096, 0x11));
    ASSERT_OK(cuabi_buffer_free_async(held, on));
    ASSERT_OK(cuabi_stream_synchronize(on));
}

TEST_F(StreamOrderedMemory, ImpossibleSizesAndOtherDevicesAreRefused) {
    cuabi_buffer* none = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create_async(context, SIZE_MAX, nullptr, nullptr, nullptr, &none),
                           CUABI_ERROR_DEVICE_OUT_OF_MEMORY);
    EXPECT_EQ(none, nullptr);
    cuabi_stream* elsewhere = nullptr;
    other_device_stream(&elsewhere);
    if (elsewhere == nullptr) return;
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create_async(context, 4096, nullptr, nullptr, elsewhere, &none),
                           CUABI_ERROR_CONTEXT_MISMATCH);
    cuabi_context_options options = CUABI_CONTEXT_OPTIONS_INIT;
    options.device_ordinal = 1;
    cuabi_context* second = nullptr;
    ASSERT_OK(cuabi_context_create(&options, &second));
    cuabi_memory_pool* foreign = nullptr;
    ASSERT_OK(cuabi_memory_pool_get_default(second, &foreign));
    EXPECT_STATUS_WITH_FIX(cuabi_buffer_create_async(context, 4096, foreign, nullptr, nullptr, &none),
                           CUABI_ERROR_CONTEXT_MISMATCH);
    cuabi_memory_pool_destroy(foreign);
    cuabi_context_destroy(second);
    EXPECT_EQ(none, nullptr);
}

}  // namespace
