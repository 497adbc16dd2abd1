// The launch fast path on a real device (launch/fast_path.hpp). A launch on a cuabi stream, once
// the kernel has launched before and its context is current on the thread, takes the fast path;
// these tests warm it up first, then check that every bad launch still gets its own status and
// message (the fast path hands it to the general path), that stale handles are refused, that the
// shared memory opt-in, a fresh thread and a faulted context behave, and that the counters count.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "launch_test_support.hpp"

namespace {

constexpr uint32_t kWords = 1 << 16;

class LaunchFastPath : public LaunchTest {
protected:
    void SetUp() override {
        LaunchTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        fill = kernel(kFillSource, "fill");
        out = buffer(kWords * 4, &out_address);
        queue = stream();
        ASSERT_TRUE(fill != nullptr && out != nullptr && queue != nullptr);
        // The warm-up: the kernel's facts are read and its context made current on this thread,
        // so the launches below go the fast way.
        ASSERT_OK(launch_fill(on_stream(1, 32)));
        ASSERT_OK(cuabi_stream_synchronize(queue));
    }

    cuabi_launch_config on_stream(uint32_t grid, uint32_t block, uint32_t shared = 0) const {
        cuabi_launch_config made = config(grid, block, shared);
        made.stream = queue;
        return made;
    }

    cuabi_status launch_fill(const cuabi_launch_config& launch) {
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
        return cuabi_launch(fill, &launch, args, 2);
    }

    std::vector<uint32_t> read_out(size_t words = kWords) {
        EXPECT_OK(cuabi_stream_synchronize(queue));
        std::vector<uint32_t> result(words);
        EXPECT_OK(cuabi_buffer_read(out, 0, result.data(), words * 4, nullptr));
        return result;
    }

    void expect_mentions(const std::string& fragment) {
        std::string text = message();
        EXPECT_NE(text.find(fragment), std::string::npos) << "message lacks '" << fragment << "': " << text;
    }

    cuabi_kernel* fill = nullptr;
    cuabi_buffer* out = nullptr;
    uint64_t out_address = 0;
    cuabi_stream* queue = nullptr;
    uint32_t value = 7;
};

TEST_F(LaunchFastPath, EveryBadLaunchOnAStreamIsReportedAndRunsNothing) {
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, kWords, nullptr));
    cuabi_launch_config launch = on_stream(1, 32);

    launch.grid[1] = 0;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_GRID);
    expect_mentions("kernel 'fill': grid (1,0,1) has 0 in dimension y");
    launch.grid[1] = static_cast<uint32_t>(info.max_grid_dim[1]) + 1;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_GRID);
    launch = on_stream(1, static_cast<uint32_t>(info.max_block_dim[0]) + 1);
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_BLOCK);
    launch = on_stream(1, 32);
    launch.block[1] = 64;  // 2048 threads
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_BLOCK);
    launch = on_stream(1, 32, static_cast<uint32_t>(info.max_shared_memory_per_block_optin) + 1);
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_SHARED_MEMORY);
    launch = on_stream(1, 32);
    launch.cluster[0] = 2;  // grid 1 is no multiple of 2, or no clusters before sm_90
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_LAUNCH_CLUSTER);
    launch = on_stream(1, 32);
    launch.flags = 0x80;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_INVALID_ARGUMENT);
    expect_mentions("cuabi_launch_config.flags is 0x80");
    launch = on_stream(1, 32);
    launch.struct_size = 4;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_STRUCT_SIZE);

    expect_argument_checks(fill, on_stream(1, 32), out_address, value);
    expect_mentions("kernel 'fill'");

    // A kernel whose own limit (launch bounds) is below the device's, warmed up like `fill`.
    cuabi_kernel* bounded = kernel(kFillSource, "bounded");
    ASSERT_NE(bounded, nullptr);
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
    cuabi_launch_config inside = on_stream(1, 128);
    ASSERT_OK(cuabi_launch(bounded, &inside, args, 2));
    ASSERT_OK(cuabi_stream_synchronize(queue));
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, kWords, nullptr));
    cuabi_launch_config over = on_stream(1, 256);
    EXPECT_STATUS_WITH_FIX(cuabi_launch(bounded, &over, args, 2), CUABI_ERROR_LAUNCH_KERNEL_THREADS);
    expect_mentions("kernel 'bounded' allows at most 128");

    for (uint32_t word : read_out()) ASSERT_EQ(word, 0xA5A5A5A5u) << "a refused launch ran";
    ASSERT_OK(launch_fill(on_stream(4, 256)));  // and the stream still works
    std::vector<uint32_t> result = read_out(1024);
    for (uint32_t i = 0; i < 1024; ++i) ASSERT_EQ(result[i], value + i);
}

TEST_F(LaunchFastPath, StaleKernelAndStreamHandlesAreInvalidHandles) {
    cuabi_module* module = nullptr;
    cuabi_kernel* doomed = nullptr;
    ASSERT_OK(cuabi_module_compile(context, kFillSource, nullptr, &module));
    ASSERT_OK(cuabi_module_get_kernel(module, "fill", &doomed));
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
    cuabi_launch_config launch = on_stream(1, 32);
    ASSERT_OK(cuabi_launch(doomed, &launch, args, 2));
    cuabi_kernel_destroy(doomed);
    cuabi_module_destroy(module);
    EXPECT_STATUS_WITH_FIX(cuabi_launch(doomed, &launch, args, 2), CUABI_ERROR_INVALID_HANDLE);
    EXPECT_STATUS_WITH_FIX(cuabi_launch_packed(doomed, &launch, nullptr, 0), CUABI_ERROR_INVALID_HANDLE);

    cuabi_stream* gone = nullptr;
    ASSERT_OK(cuabi_stream_create(context, nullptr, &gone));
    launch.stream = gone;
    ASSERT_OK(launch_fill(launch));
    ASSERT_OK(cuabi_stream_synchronize(gone));
    cuabi_stream_destroy(gone);
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_INVALID_HANDLE);
    expect_mentions("cuabi_launch_config.stream");
}

// The fast path compares the stream's context with the kernel's; another device's stream goes the
// general way, which names the mismatch.
TEST_F(LaunchFastPath, AStreamOfAnotherDeviceIsAContextMismatch) {
    cuabi_stream* foreign = nullptr;
    other_device_stream(&foreign);
    if (foreign == nullptr) return;  // skipped with one device, or failed
    cuabi_launch_config launch = on_stream(1, 32);
    launch.stream = foreign;
    EXPECT_STATUS_WITH_FIX(launch_fill(launch), CUABI_ERROR_CONTEXT_MISMATCH);
    expect_mentions("kernel 'fill'");
    launch.stream = queue;
    EXPECT_OK(launch_fill(launch));  // the kernel's own stream still launches
}

// Above what the kernel is opted in to, a launch goes the general way, which raises the kernel's
// limit; the same size then launches the fast way. Both compute the right rotation.
TEST_F(LaunchFastPath, SharedMemoryAboveTheOptInIsRaisedThenLaunchesFast) {
    if (info.max_shared_memory_per_block_optin <= 48 * 1024) GTEST_SKIP() << "the device has no shared memory opt-in";
    cuabi_kernel* rotate = kernel(kRotateSource, "rotate");
    ASSERT_NE(rotate, nullptr);
    for (uint32_t bytes : {16u * 1024u, 64u * 1024u, 64u * 1024u, 100u * 1024u, 32u * 1024u}) {
        const uint32_t words = bytes / 4;
        ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, words, nullptr));
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&words, 4}};
        cuabi_launch_config launch = on_stream(1, 256, bytes);
        ASSERT_OK(cuabi_launch(rotate, &launch, args, 2));
        std::vector<uint32_t> result = read_out(words);
        for (uint32_t i = 0; i < words; ++i)
            ASSERT_EQ(result[i], ((i + words / 2) % words) * 2654435761u) << bytes << " bytes, word " << i;
    }
}

// A new thread has no current context: its first launch finds that out and goes the general way
// (which makes the context current), its later ones go fast. Each thread writes its own range.
TEST_F(LaunchFastPath, NewThreadsWithoutACurrentContextLaunchCorrectly) {
    constexpr uint32_t kThreads = 4, kBlock = 256;
    std::vector<cuabi_stream*> streams;
    for (uint32_t t = 0; t < kThreads; ++t) streams.push_back(stream());
    std::vector<cuabi_status> statuses(kThreads * 3, CUABI_ERROR_INTERNAL);
    std::vector<std::thread> threads;
    for (uint32_t t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            for (uint32_t round = 0; round < 3; ++round) {
                // Round r writes value 1000 * (r + 1) + index into this thread's 256 words.
                uint64_t address = out_address + uint64_t{t} * kBlock * 4;
                uint32_t base = 1000 * (round + 1) + t * kBlock;
                cuabi_kernel_arg args[] = {{&address, 8}, {&base, 4}};
                cuabi_launch_config launch = config(1, kBlock);
                launch.stream = streams[t];
                statuses[t * 3 + round] = cuabi_launch(fill, &launch, args, 2);
            }
            cuabi_stream_synchronize(streams[t]);
        });
    for (std::thread& thread : threads) thread.join();
    for (size_t i = 0; i < statuses.size(); ++i) EXPECT_EQ(statuses[i], CUABI_SUCCESS) << "launch " << i;
    std::vector<uint32_t> result = read_out(kThreads * kBlock);
    for (uint32_t i = 0; i < kThreads * kBlock; ++i) ASSERT_EQ(result[i], 3000 + i) << "word " << i;
}

// The driver's own context calls, resolved at run time like cuabi does (the test binary does not
// link libcuda, so it still loads on machines without a driver).
struct DriverContexts {
    void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    using Get = int (*)(int*, int);
    using Create = int (*)(void**, void*, unsigned, int);
    using Set = int (*)(void*);
    using Current = int (*)(void**);
    Get device_get = library ? reinterpret_cast<Get>(dlsym(library, "cuDeviceGet")) : nullptr;
    Create create = library ? reinterpret_cast<Create>(dlsym(library, "cuCtxCreate_v4")) : nullptr;
    Set destroy = library ? reinterpret_cast<Set>(dlsym(library, "cuCtxDestroy_v2")) : nullptr;
    Set set_current = library ? reinterpret_cast<Set>(dlsym(library, "cuCtxSetCurrent")) : nullptr;
    Current get_current = library ? reinterpret_cast<Current>(dlsym(library, "cuCtxGetCurrent")) : nullptr;
    bool ok() const { return device_get && create && destroy && set_current && get_current; }
};

// Launches and replays on a stream take the context from the stream, so they work -- and leave
// the thread's current context alone -- with another context current, or none.
TEST_F(LaunchFastPath, LaunchesAndReplaysWhicheverContextIsCurrent) {
    DriverContexts driver;
    ASSERT_TRUE(driver.ok()) << "libcuda.so.1 lacks a context entry point: " << dlerror();
    int device = 0;
    ASSERT_EQ(driver.device_get(&device, info.ordinal), 0);
    void* other = nullptr;
    ASSERT_EQ(driver.create(&other, nullptr, 0, device), 0);
    cuabi_graph* graph = nullptr;
    uint32_t graph_value = 500;
    uint64_t graph_address = out_address + 256 * 4;
    cuabi_kernel_arg graph_args[] = {{&graph_address, 8}, {&graph_value, 4}};
    cuabi_launch_config launch = on_stream(1, 256);
    ASSERT_OK(cuabi_graph_capture_begin(queue, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(fill, &launch, graph_args, 2));
    ASSERT_OK(cuabi_graph_capture_end(queue, nullptr, &graph));

    for (void* current : {other, static_cast<void*>(nullptr)}) {
        SCOPED_TRACE(current ? "another context current" : "no context current");
        ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5A5A5A5u, 4, 512, nullptr));
        ASSERT_EQ(driver.set_current(current), 0);
        value = current ? 100 : 200;
        EXPECT_OK(launch_fill(launch));
        EXPECT_OK(cuabi_graph_launch(graph, queue));
        void* after = reinterpret_cast<void*>(1);
        ASSERT_EQ(driver.get_current(&after), 0);
        if (current != nullptr) EXPECT_EQ(after, current) << "the launches switched the thread's context";
        std::vector<uint32_t> result = read_out(512);
        for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(result[i], value + i) << "launch, word " << i;
        for (uint32_t i = 0; i < 256; ++i) ASSERT_EQ(result[256 + i], graph_value + i) << "replay, word " << i;
    }
    cuabi_graph_destroy(graph);
    EXPECT_EQ(driver.destroy(other), 0);
}

TEST_F(LaunchFastPath, CountersCountFastLaunchesByForm) {
    cuabi_counters before = CUABI_COUNTERS_INIT, after = CUABI_COUNTERS_INIT;
    ASSERT_OK(cuabi_context_get_counters(context, &before));
    cuabi_launch_config launch = on_stream(1, 32);
    cuabi_kernel_arg args[] = {{&out_address, 8}, {&value, 4}};
    std::vector<uint8_t> packed = pack(fill, {args[0], args[1]});
    for (int i = 0; i < 10; ++i) ASSERT_OK(cuabi_launch(fill, &launch, args, 2));
    for (int i = 0; i < 5; ++i) ASSERT_OK(cuabi_launch_packed(fill, &launch, packed.data(), packed.size()));
    ASSERT_OK(cuabi_stream_synchronize(queue));
    ASSERT_OK(cuabi_context_get_counters(context, &after));
    EXPECT_EQ(after.launches - before.launches, 15u);
    EXPECT_EQ(after.launches_packed - before.launches_packed, 5u);
    EXPECT_EQ(after.launches_cooperative, before.launches_cooperative);
}

// An illegal address faults the context for good; afterwards the driver refuses every launch, and
// a fast launch reports that like any other. In a fresh process (threadsafe death test) so the
// fault does not poison the other tests.
void fault_then_launch_on_a_stream(cuabi_kernel* fill, cuabi_stream* queue, uint64_t out_address) {
    uint64_t bad = 0x10;
    uint32_t value = 1;
    cuabi_kernel_arg good[] = {{&out_address, 8}, {&value, 4}};
    cuabi_kernel_arg faulting[] = {{&bad, 8}, {&value, 4}};
    cuabi_launch_config launch = CUABI_LAUNCH_CONFIG_INIT;
    launch.stream = queue;
    cuabi_status first = cuabi_launch(fill, &launch, faulting, 2);
    cuabi_status wait = cuabi_stream_synchronize(queue);  // the fault shows here
    cuabi_status table = cuabi_launch(fill, &launch, good, 2);
    std::string table_text = cuabi_last_error_message();
    int32_t cu_result = cuabi_last_cu_result();
    uint8_t packed[12] = {};
    cuabi_status packed_status = cuabi_launch_packed(fill, &launch, packed, sizeof packed);
    bool ok = first == CUABI_SUCCESS && wait != CUABI_SUCCESS && table == CUABI_ERROR_LAUNCH_FAILED &&
              packed_status == CUABI_ERROR_LAUNCH_FAILED && cu_result != 0 &&
              table_text.find("kernel 'fill'") != std::string::npos && table_text.find("Fix: ") != std::string::npos;
    if (!ok)
        std::fprintf(stderr, "first %s, wait %s, table %s, packed %s (CUresult %d): %s\n", cuabi_status_name(first),
                     cuabi_status_name(wait), cuabi_status_name(table), cuabi_status_name(packed_status), cu_result,
                     table_text.c_str());
    std::fflush(stderr);
    std::_Exit(ok ? 0 : 1);  // no destructors: the context is faulted, nothing is worth cleaning up
}

TEST_F(LaunchFastPath, DriverRefusalOfAFastLaunchIsLaunchFailedWithTheCUresult) {
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(fault_then_launch_on_a_stream(fill, queue, out_address), ::testing::ExitedWithCode(0), "");
}

}  // namespace
