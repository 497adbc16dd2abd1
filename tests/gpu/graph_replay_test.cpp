// Capture, replay and inventory on a real GPU: a captured chain of kernels, a memset and a copy
// replays to the right results and describes itself node by node; failures during capture never
// leave a stream capturing; graphs outlive their context; a thousand nodes replay; the graph cache
// hands out independent handles; a NULL stream replays and uploads synchronously.
#include <chrono>

#include "graph_test_support.hpp"

namespace {

constexpr unsigned kN = 4096;
constexpr uint32_t kBlock = 256;
constexpr uint32_t kGrid = kN / kBlock;

// Spins for `ns` nanoseconds of the GPU's global timer, then writes value + thread index: work that
// is still running long after an asynchronous submission has returned.
const char* const kSlowWriteSource = R"(
extern "C" __global__ void slow_write(unsigned* out, unsigned long long ns, unsigned value) {
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
    out[threadIdx.x] = value + threadIdx.x;
}
)";

TEST_F(GraphTest, CapturedKernelsMemsetAndCopyReplayToTheRightResults) {
    uint64_t in_address = 0, tmp_address = 0, out_address = 0, flags_address = 0;
    cuabi_buffer* in = buffer(kN * sizeof(float), &in_address);
    cuabi_buffer* tmp = buffer(kN * sizeof(float), &tmp_address);
    cuabi_buffer* out = buffer(kN * sizeof(float), &out_address);
    cuabi_buffer* flags = buffer(kN * sizeof(uint32_t), &flags_address);
    const std::vector<float> input = random_floats(kN, 1);
    write(in, input);

    float a = 3.0f, b = 5.0f, c = 7.0f;
    unsigned n = kN;
    cuabi_kernel_arg first[] = {{&tmp_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    cuabi_kernel_arg second[] = {{&tmp_address, 8}, {&c, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;

    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(flags, 0, 0x5EED1234u, 4, kN, capturing));
    ASSERT_OK(cuabi_launch(scale_add, &launch, first, 5));
    ASSERT_OK(cuabi_launch(add_in_place, &launch, second, 3));
    ASSERT_OK(cuabi_buffer_copy(out, 0, tmp, 0, kN * sizeof(float), capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);

    // Captured work is recorded, not run.
    std::vector<uint8_t> untouched(kN * sizeof(float));
    ASSERT_OK(cuabi_buffer_read(out, 0, untouched.data(), untouched.size(), nullptr));
    EXPECT_EQ(untouched, poisoned(untouched.size()));

    replay(graph, capturing);
    const std::vector<float> result = read<float>(out, kN);
    const std::vector<uint32_t> flag_values = read<uint32_t>(flags, kN);
    for (unsigned i = 0; i < kN; ++i) {
        ASSERT_EQ(result[i], a * input[i] + b + c) << "element " << i;
        ASSERT_EQ(flag_values[i], 0x5EED1234u) << "element " << i;
    }

    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    ASSERT_EQ(count, 4u);
    EXPECT_EQ(node(graph, 0).kind, CUABI_GRAPH_NODE_MEMSET);
    EXPECT_EQ(node(graph, 0).memset_value, 0x5EED1234u);
    EXPECT_EQ(node(graph, 0).memset_element_size, 4u);
    const int32_t kernel_nodes[] = {1, 2};
    const unsigned param_counts[] = {5, 3};
    for (int k = 0; k < 2; ++k) {
        cuabi_graph_node_info info = node(graph, kernel_nodes[k]);
        EXPECT_EQ(info.kind, CUABI_GRAPH_NODE_KERNEL);
        EXPECT_EQ(info.grid[0], kGrid);
        EXPECT_EQ(info.grid[1], 1u);
        EXPECT_EQ(info.block[0], kBlock);
        EXPECT_EQ(info.shared_memory_bytes, 0u);
        EXPECT_EQ(info.param_count, param_counts[k]);
        ASSERT_NE(info.kernel, nullptr) << "a kernel launched through cuabi is reported as its cuabi kernel";
        void* reported = nullptr;
        void* launched = nullptr;
        ASSERT_OK(cuabi_kernel_get_native(info.kernel, &reported));
        ASSERT_OK(cuabi_kernel_get_native(k == 0 ? scale_add : add_in_place, &launched));
        EXPECT_EQ(reported, launched);
    }
    EXPECT_EQ(kernel_name(graph, 1), "scale_add");
    EXPECT_EQ(kernel_name(graph, 2), "add_in_place");
    EXPECT_EQ(node(graph, 1).param_bytes, 28u);  // two pointers, two floats, one unsigned
    EXPECT_EQ(node(graph, 3).kind, CUABI_GRAPH_NODE_MEMCPY);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_node_info(graph, 4, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    cuabi_graph_node_info past = CUABI_GRAPH_NODE_INFO_INIT;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_node_info(graph, 4, &past), CUABI_ERROR_GRAPH_NODE);
    size_t size = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_node_kernel_name(graph, 0, nullptr, 0, &size), CUABI_ERROR_GRAPH_NODE);
}

TEST_F(GraphTest, EveryCaptureModeCapturesAndReplays) {
    uint64_t address = 0;
    cuabi_buffer* out = buffer(kN * sizeof(uint32_t), &address);
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    for (int32_t mode : {CUABI_CAPTURE_MODE_GLOBAL, CUABI_CAPTURE_MODE_THREAD_LOCAL, CUABI_CAPTURE_MODE_RELAXED}) {
        poison(out, kN * sizeof(uint32_t));
        ASSERT_OK(cuabi_graph_capture_begin(capturing, mode));
        ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
        cuabi_graph* graph = end_capture(capturing);
        ASSERT_NE(graph, nullptr) << "mode " << mode;
        replay(graph, capturing);
        std::vector<uint32_t> values = read<uint32_t>(out, kN);
        for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "mode " << mode << " element " << i;
    }
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_begin(capturing, 3), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST_F(GraphTest, ReplaysOnAnyStreamOfTheContextAndCountsLaunches) {
    uint64_t address = 0;
    cuabi_buffer* data = buffer(kN * sizeof(float), &address);
    write(data, std::vector<float>(kN, 0.0f));
    float one = 1.0f;
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&one, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    const cuabi_counters before = counters_of(context);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_RELAXED));
    ASSERT_OK(cuabi_launch(add_in_place, &launch, args, 3));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    cuabi_stream* other = stream();
    ASSERT_OK(cuabi_graph_upload(graph, other));
    replay(graph, other);
    replay(graph, capturing);
    replay(graph, other);
    std::vector<float> values = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3.0f) << "element " << i;
    const cuabi_counters after = counters_of(context);
    EXPECT_EQ(after.graph_launches - before.graph_launches, 3u);
    EXPECT_EQ(after.graph_instantiations - before.graph_instantiations, 1u);
}

TEST_F(GraphTest, ReplayOnAnotherDevicesStreamIsRefused) {
    cuabi_stream* foreign = nullptr;
    other_device_stream(&foreign);
    if (foreign == nullptr) return;  // skipped with one device, or failed
    uint64_t address = 0;
    buffer(64, &address);  // before the capture: allocating is not allowed while a global capture runs
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_GLOBAL));
    unsigned n = 16;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(1, 16);
    launch.stream = capturing;
    ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
    cuabi_graph* graph = end_capture(capturing);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_launch(graph, foreign), CUABI_ERROR_CONTEXT_MISMATCH);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_upload(graph, foreign), CUABI_ERROR_CONTEXT_MISMATCH);
}

// NULL means "on the calling thread's per-thread stream, waiting for completion". The replayed
// kernel spins for 200 ms; the result is read on another stream, which does not wait for the
// per-thread stream, so it shows the kernel's values only if the replay had finished when
// cuabi_graph_launch returned (and the call took at least the spin).
TEST_F(GraphTest, ANullStreamUploadsAndReplaysSynchronously) {
    constexpr unsigned kThreads = 64;
    constexpr unsigned long long kSpinNs = 200ull * 1000 * 1000;
    cuabi_kernel* slow_write = kernel(kSlowWriteSource, "slow_write");
    ASSERT_NE(slow_write, nullptr);
    uint64_t address = 0;
    cuabi_buffer* out = buffer(kThreads * sizeof(uint32_t), &address);
    unsigned long long ns = kSpinNs;
    unsigned value = 1000;
    cuabi_kernel_arg args[] = {{&address, 8}, {&ns, 8}, {&value, 4}};
    cuabi_launch_config launch = config(1, kThreads);
    launch.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(slow_write, &launch, args, 3));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    const cuabi_counters before = counters_of(context);

    ASSERT_OK(cuabi_graph_upload(graph, nullptr));
    EXPECT_EQ(read<uint32_t>(out, kThreads), std::vector<uint32_t>(kThreads, 0xA5A5A5A5u)) << "an upload runs nothing";

    const auto start = std::chrono::steady_clock::now();
    ASSERT_OK(cuabi_graph_launch(graph, nullptr));
    const auto waited = std::chrono::steady_clock::now() - start;
    std::vector<uint32_t> seen(kThreads, 0);
    ASSERT_OK(cuabi_buffer_read(out, 0, seen.data(), seen.size() * sizeof(uint32_t), capturing));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    for (unsigned i = 0; i < kThreads; ++i) ASSERT_EQ(seen[i], value + i) << "element " << i;
    EXPECT_GE(std::chrono::duration_cast<std::chrono::nanoseconds>(waited).count(), static_cast<long long>(kSpinNs))
        << "cuabi_graph_launch(graph, NULL) returned before the replay could have finished";

    const cuabi_counters after = counters_of(context);
    EXPECT_EQ(after.graph_launches - before.graph_launches, 1u) << "one replay; the upload is not a launch";
}

TEST_F(GraphTest, ALaunchRefusedDuringCaptureEndsTheCaptureAndTheStreamStaysUsable) {
    uint64_t address = 0;
    cuabi_buffer* out = buffer(kN * sizeof(uint32_t), &address);
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config too_big = config(1, 4096);  // more threads than any device allows per block
    too_big.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    cuabi_status status = cuabi_launch(write_index, &too_big, args, 2);
    EXPECT_EQ(status, CUABI_ERROR_LAUNCH_BLOCK) << cuabi_failure_text(status);
    const std::string said = cuabi_last_error_message();
    EXPECT_NE(said.find("4096"), std::string::npos) << said;
    EXPECT_NE(said.find("ended the capture"), std::string::npos) << said;
    EXPECT_NE(said.find("Fix: "), std::string::npos) << said;

    int32_t active = CUABI_CAPTURE_STATUS_ACTIVE;
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &active));
    EXPECT_EQ(active, CUABI_CAPTURE_STATUS_NONE);
    cuabi_graph* graph = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, nullptr, &graph), CUABI_ERROR_CAPTURE);
    EXPECT_EQ(graph, nullptr);

    // The stream runs work again, right away.
    cuabi_launch_config fine = config(kGrid, kBlock);
    fine.stream = capturing;
    ASSERT_OK(cuabi_launch(write_index, &fine, args, 2));
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    std::vector<uint32_t> values = read<uint32_t>(out, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "element " << i;
}

TEST_F(GraphTest, BadArgumentsToCaptureEndStillEndTheCapture) {
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_GLOBAL));
    cuabi_graph_options options = CUABI_GRAPH_OPTIONS_INIT;
    options.flags = 0x80u;
    cuabi_graph* graph = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, &options, &graph), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("ended the capture"), std::string::npos);
    int32_t active = CUABI_CAPTURE_STATUS_ACTIVE;
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &active));
    EXPECT_EQ(active, CUABI_CAPTURE_STATUS_NONE);

    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_GLOBAL));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &active));
    EXPECT_EQ(active, CUABI_CAPTURE_STATUS_NONE);
}

TEST_F(GraphTest, CaptureStateErrorsSayWhatIsWrong) {
    cuabi_graph* graph = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, nullptr, &graph), CUABI_ERROR_CAPTURE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("not capturing"), std::string::npos);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_RELAXED));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_RELAXED), CUABI_ERROR_CAPTURE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("already capturing"), std::string::npos);
    // An empty capture is no graph worth having, but ending it must not leave the stream capturing.
    ASSERT_OK(cuabi_graph_capture_abort(capturing));
    int32_t active = CUABI_CAPTURE_STATUS_ACTIVE;
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &active));
    EXPECT_EQ(active, CUABI_CAPTURE_STATUS_NONE);
    ASSERT_OK(cuabi_graph_capture_abort(capturing));  // nothing to abort is fine
}

TEST_F(GraphTest, AGraphKeepsItsKernelsAndContextAliveAndDiesLast) {
    cuabi_context* own = nullptr;
    ASSERT_OK(cuabi_context_create(nullptr, &own));
    cuabi_module* module = nullptr;
    ASSERT_OK(cuabi_module_compile(own, kGraphKernels, nullptr, &module));
    cuabi_kernel* writer = nullptr;
    ASSERT_OK(cuabi_module_get_kernel(module, "write_index", &writer));
    cuabi_stream* own_stream = nullptr;
    ASSERT_OK(cuabi_stream_create(own, nullptr, &own_stream));
    cuabi_buffer* out = nullptr;
    ASSERT_OK(cuabi_buffer_create(own, kN * sizeof(uint32_t), nullptr, &out));
    uint64_t address = 0;
    ASSERT_OK(cuabi_buffer_get_device_address(out, &address));
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = own_stream;
    ASSERT_OK(cuabi_graph_capture_begin(own_stream, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(writer, &launch, args, 2));
    cuabi_graph* graph = nullptr;
    ASSERT_OK(cuabi_graph_capture_end(own_stream, nullptr, &graph));
    // Without knowing its cuabi kernel the graph could not keep the module loaded, and replaying
    // it after the module is gone would run unloaded code: stop here instead.
    cuabi_graph_node_info info = CUABI_GRAPH_NODE_INFO_INIT;
    ASSERT_OK(cuabi_graph_get_node_info(graph, 0, &info));
    ASSERT_NE(info.kernel, nullptr) << "the graph does not know the cuabi kernel it launches";

    cuabi_kernel_destroy(writer);
    cuabi_module_destroy(module);
    cuabi_context_destroy(own);
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0xA5, 1, kN * sizeof(uint32_t), nullptr));
    ASSERT_OK(cuabi_graph_launch(graph, own_stream));
    ASSERT_OK(cuabi_stream_synchronize(own_stream));
    std::vector<uint32_t> values(kN);
    ASSERT_OK(cuabi_buffer_read(out, 0, values.data(), values.size() * sizeof(uint32_t), nullptr));
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "element " << i;
    cuabi_stream_destroy(own_stream);
    cuabi_buffer_destroy(out);
    cuabi_graph_destroy(graph);  // the last handle: context, module and kernel go with it
}

TEST_F(GraphTest, AThousandKernelNodesReplayAndAreEachReported) {
    constexpr int kNodes = 1000;
    uint64_t address = 0;
    cuabi_buffer* data = buffer(kN * sizeof(float), &address);
    const std::vector<float> start = random_floats(kN, 2);
    write(data, start);
    float one = 1.0f;
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&one, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    for (int i = 0; i < kNodes; ++i) ASSERT_OK(cuabi_launch(add_in_place, &launch, args, 3));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    ASSERT_EQ(count, static_cast<size_t>(kNodes));
    for (int i = 0; i < kNodes; ++i) ASSERT_EQ(node(graph, i).kind, CUABI_GRAPH_NODE_KERNEL) << "node " << i;

    replay(graph, capturing);
    std::vector<float> values = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], start[i] + kNodes) << "element " << i;

    // Node 999 now adds 10 instead of 1: the next replay adds 1009.
    float ten = 10.0f;
    cuabi_kernel_arg changed[] = {{&address, 8}, {&ten, 4}, {&n, 4}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, kNodes - 1, changed, 3));
    replay(graph, capturing);
    values = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], start[i] + 2 * kNodes + 9) << "element " << i;
}

TEST_F(GraphTest, TheGraphCacheHandsOutIndependentHandlesAndEvictsTheOldest) {
    ASSERT_OK(cuabi_graph_cache_clear(nullptr));
    cuabi_graph_cache_set_capacity(2);
    uint64_t address = 0;
    cuabi_buffer* out = buffer(kN * sizeof(uint32_t), &address);
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    cuabi_graph* made[3] = {};
    for (int i = 0; i < 3; ++i) {
        ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
        ASSERT_OK(cuabi_graph_capture_end(capturing, nullptr, &made[i]));
    }
    const char* const keys[3] = {"join/a", "join/b", "join/c"};
    cuabi_graph_cache_stats before = CUABI_GRAPH_CACHE_STATS_INIT;
    ASSERT_OK(cuabi_graph_cache_get_stats(&before));
    ASSERT_OK(cuabi_graph_cache_insert(context, keys[0], 6, 300, made[0]));
    cuabi_graph_destroy(made[0]);  // the cache keeps its own reference
    cuabi_graph* found = nullptr;
    ASSERT_OK(cuabi_graph_cache_lookup(context, keys[0], 6, 500, &found));  // 300 and 500 share class 512
    EXPECT_STATUS_WITH_FIX(cuabi_graph_cache_lookup(context, keys[0], 6, 200, &found), CUABI_ERROR_NOT_FOUND);
    poison(out, kN * sizeof(uint32_t));
    replay(found, capturing);
    std::vector<uint32_t> values = read<uint32_t>(out, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "element " << i;

    ASSERT_OK(cuabi_graph_cache_insert(context, keys[1], 6, 1, made[1]));
    ASSERT_OK(cuabi_graph_cache_insert(context, keys[2], 6, 1, made[2]));  // evicts keys[0]
    cuabi_graph* evicted = nullptr;
    EXPECT_EQ(cuabi_graph_cache_lookup(context, keys[0], 6, 300, &evicted), CUABI_ERROR_NOT_FOUND);
    replay(found, capturing);  // the looked-up handle outlives the eviction
    cuabi_graph_destroy(found);
    cuabi_graph_destroy(made[1]);
    cuabi_graph_destroy(made[2]);
    cuabi_graph_cache_stats after = CUABI_GRAPH_CACHE_STATS_INIT;
    ASSERT_OK(cuabi_graph_cache_get_stats(&after));
    EXPECT_EQ(after.hits - before.hits, 1u);
    EXPECT_EQ(after.misses - before.misses, 2u);
    EXPECT_EQ(after.evictions - before.evictions, 1u);
    EXPECT_EQ(after.entries, 2u);
    ASSERT_OK(cuabi_graph_cache_clear(context));
    cuabi_graph_cache_set_capacity(256);
}

}  // namespace
