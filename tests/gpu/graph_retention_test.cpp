// Graphs keep alive the buffers they use (graph/retention.hpp). The issue's repro: capture a fill
// of buffer B, destroy B, create C of the same size (the allocator hands it B's address), replay:
// every element of C was overwritten. Now B's memory stays the graph's until the graph dies.
#include <cstring>
#include <thread>

#include "graph_test_support.hpp"
#include "raw_driver.hpp"

namespace {

constexpr size_t kWords = 1 << 20;  // 4 MiB
constexpr size_t kBytes = kWords * sizeof(uint32_t);

class GraphRetention : public GraphTest {
protected:
    cuabi_buffer* create(size_t bytes, uint64_t* out_address = nullptr) {
        cuabi_buffer* made = nullptr;
        EXPECT_OK(cuabi_buffer_create(context, bytes, nullptr, &made));
        if (out_address != nullptr && made != nullptr) EXPECT_OK(cuabi_buffer_get_device_address(made, out_address));
        return made;
    }
    static std::vector<uint32_t> pattern(size_t count, uint32_t seed) {
        std::vector<uint32_t> values(count);
        for (size_t i = 0; i < count; ++i) values[i] = seed + 7u * static_cast<uint32_t>(i);
        return values;
    }
    // Expects `buffer` to still hold `expected`, untouched by a replay that ran meanwhile.
    void expect_untouched(cuabi_buffer* buffer, const std::vector<uint32_t>& expected) {
        std::vector<uint32_t> now = read<uint32_t>(buffer, expected.size());
        for (size_t i = 0; i < expected.size(); ++i)
            ASSERT_EQ(now[i], expected[i]) << "word " << i << " was written by a replay of a destroyed buffer's graph";
    }
    // Free device memory, as the driver reports it.
    size_t free_bytes() {
        void* native = nullptr;
        EXPECT_OK(cuabi_context_get_native(context, &native));
        EXPECT_EQ(driver.ctx_set_current(static_cast<CUcontext>(native)), CUDA_SUCCESS);
        size_t free = 0, total = 0;
        EXPECT_EQ(driver.mem_get_info(&free, &total), CUDA_SUCCESS);
        return free;
    }
    // Captures write_index(address, kWords) on `capturing`, with a table or packed arguments.
    cuabi_graph* capture_write_index(uint64_t address, bool packed) {
        uint32_t n = static_cast<uint32_t>(kWords);
        cuabi_kernel_arg args[] = {{&address, sizeof address}, {&n, sizeof n}};
        unsigned char packed_args[12] = {};
        std::memcpy(packed_args, &address, 8);
        std::memcpy(packed_args + 8, &n, 4);
        cuabi_launch_config launch = config(static_cast<uint32_t>(kWords / 256), 256);
        launch.stream = capturing;
        EXPECT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        cuabi_status status = packed ? cuabi_launch_packed(write_index, &launch, packed_args, sizeof packed_args)
                                     : cuabi_launch(write_index, &launch, args, 2);
        EXPECT_OK(status);
        return status == CUABI_SUCCESS ? end_capture(capturing) : nullptr;
    }
    // Creates C of kBytes (the allocator's candidate for `freed_address`), fills it, replays
    // `graph` and expects C untouched -- and not at the address the graph writes.
    void expect_replay_spares_a_new_buffer(cuabi_graph* graph, uint64_t freed_address, uint32_t seed) {
        uint64_t c_address = 0;
        cuabi_buffer* c = create(kBytes, &c_address);
        const std::vector<uint32_t> values = pattern(kWords, seed);
        write(c, values);
        replay(graph, capturing);
        expect_untouched(c, values);
        EXPECT_NE(c_address, freed_address) << "the freed buffer's memory was handed out while the graph writes it";
        cuabi_buffer_destroy(c);
    }
    RawDriver driver;
};

TEST_F(GraphRetention, ACapturedFillKeepsItsBufferAliveAfterTheHandleIsDestroyed) {
    uint64_t b_address = 0;
    cuabi_buffer* b = create(kBytes, &b_address);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(b, 0, 0xB0B0B0B0u, 4, kWords, capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer_destroy(b);

    uint64_t c_address = 0;
    cuabi_buffer* c = create(kBytes, &c_address);
    const std::vector<uint32_t> values = pattern(kWords, 11);
    write(c, values);
    replay(graph, capturing);
    expect_untouched(c, values);
    EXPECT_NE(c_address, b_address) << "B's memory was handed out again while the graph uses it";
    cuabi_buffer_destroy(c);
}

TEST_F(GraphRetention, ACapturedCopyKeepsBothBuffersAlive) {
    cuabi_buffer* from = create(kBytes);
    cuabi_buffer* to = create(kBytes);
    write(from, pattern(kWords, 5));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_copy(to, 0, from, 0, kBytes, capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer_destroy(from);
    cuabi_buffer_destroy(to);
    cuabi_buffer* c = create(kBytes);
    cuabi_buffer* d = create(kBytes);
    const std::vector<uint32_t> c_values = pattern(kWords, 100), d_values = pattern(kWords, 200);
    write(c, c_values);
    write(d, d_values);
    replay(graph, capturing);
    expect_untouched(c, c_values);
    expect_untouched(d, d_values);
    cuabi_buffer_destroy(c);
    cuabi_buffer_destroy(d);
}

TEST_F(GraphRetention, RetainBufferKeepsABufferReachedThroughAKernelArgumentAlive) {
    uint64_t address = 0;
    cuabi_buffer* out = create(kBytes, &address);
    uint32_t n = static_cast<uint32_t>(kWords);
    cuabi_kernel_arg args[] = {{&address, sizeof address}, {&n, sizeof n}};
    cuabi_launch_config launch = config(static_cast<uint32_t>(kWords / 256), 256);
    launch.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(write_index, &launch, args, 2));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    ASSERT_OK(cuabi_graph_retain_buffer(graph, out));
    ASSERT_OK(cuabi_graph_retain_buffer(graph, out)) << "retaining twice is harmless";
    cuabi_buffer_destroy(out);

    cuabi_buffer* other = create(kBytes);
    const std::vector<uint32_t> values = pattern(kWords, 3);
    write(other, values);
    replay(graph, capturing);
    expect_untouched(other, values);
    cuabi_buffer_destroy(other);
}

// The issue's repro with the kernel argument as the only link: capture a kernel writing B (B's
// address passed as an argument, the normal way), destroy B, create C of the same size, replay. No
// cuabi_graph_retain_buffer: the capture saw the pointer-sized argument and retained B.
TEST_F(GraphRetention, AKernelArgumentCapturedKeepsItsBufferAlive) {
    for (bool packed : {false, true}) {
        SCOPED_TRACE(packed ? "packed arguments" : "argument table");
        uint64_t b_address = 0;
        cuabi_buffer* b = create(kBytes, &b_address);
        cuabi_graph* graph = capture_write_index(b_address, packed);
        ASSERT_NE(graph, nullptr);
        cuabi_buffer_destroy(b);
        expect_replay_spares_a_new_buffer(graph, b_address, 21);
    }
}

// The same after cuabi_graph_update_kernel_args points the node at another buffer D: the update
// retains D, so destroying D and creating C (D's address) leaves C alone at the next replay.
TEST_F(GraphRetention, AKernelArgumentUpdateKeepsTheNewBufferAlive) {
    uint64_t a_address = 0, d_address = 0;
    cuabi_buffer* a = create(kBytes, &a_address);
    cuabi_graph* graph = capture_write_index(a_address, false);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer* d = create(kBytes, &d_address);
    uint32_t n = static_cast<uint32_t>(kWords);
    cuabi_kernel_arg moved[] = {{&d_address, sizeof d_address}, {&n, sizeof n}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, moved, 2));
    cuabi_buffer_destroy(d);
    cuabi_buffer_destroy(a);
    expect_replay_spares_a_new_buffer(graph, d_address, 31);
}

// An update that passes again a buffer an earlier update reached (here inside D) asks the buffer
// directory nothing, and a buffer new to the graph (E) is still found and kept.
TEST_F(GraphRetention, RepeatedArgumentUpdatesKeepEveryNewBufferTheyReach) {
    uint64_t a_address = 0, d_address = 0, e_address = 0;
    cuabi_buffer* a = create(kBytes, &a_address);
    cuabi_graph* graph = capture_write_index(a_address, false);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer* d = create(kBytes, &d_address);
    cuabi_buffer* e = create(kBytes, &e_address);
    uint32_t n = static_cast<uint32_t>(kWords);
    cuabi_kernel_arg to_d[] = {{&d_address, sizeof d_address}, {&n, sizeof n}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, to_d, 2));
    uint64_t inside_d = d_address + 256;
    uint32_t fewer = n - 64;  // 256 bytes fewer: the words up to D's end
    cuabi_kernel_arg into_d[] = {{&inside_d, sizeof inside_d}, {&fewer, sizeof fewer}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, into_d, 2));
    cuabi_kernel_arg to_e[] = {{&e_address, sizeof e_address}, {&n, sizeof n}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, to_e, 2));
    cuabi_buffer_destroy(e);
    cuabi_buffer_destroy(d);
    cuabi_buffer_destroy(a);
    expect_replay_spares_a_new_buffer(graph, e_address, 37);
}

// A buffer reached only through a struct argument is a raw address cuabi cannot see: without
// cuabi_graph_retain_buffer it is freed (its address handed out again); with it, it is kept.
TEST_F(GraphRetention, ABufferReachedThroughAStructStillNeedsTheExplicitCall) {
    cuabi_kernel* through_struct = kernel(R"(
        struct Span { unsigned* data; unsigned n; };
        extern "C" __global__ void fill_span(Span span) {
            unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
            if (i < span.n) span.data[i] = 5u * i;
        })",
                                          "fill_span");
    ASSERT_NE(through_struct, nullptr);
    for (bool retain : {false, true}) {
        SCOPED_TRACE(retain ? "retained explicitly" : "not retained");
        uint64_t b_address = 0;
        cuabi_buffer* b = create(kBytes, &b_address);
        struct {
            uint64_t data;
            uint32_t n;
            uint32_t pad;
        } span = {b_address, static_cast<uint32_t>(kWords), 0};
        cuabi_kernel_arg args[] = {{&span, sizeof span}};
        cuabi_launch_config launch = config(static_cast<uint32_t>(kWords / 256), 256);
        launch.stream = capturing;
        ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        ASSERT_OK(cuabi_launch(through_struct, &launch, args, 1));
        cuabi_graph* graph = end_capture(capturing);
        ASSERT_NE(graph, nullptr);
        if (retain) {
            ASSERT_OK(cuabi_graph_retain_buffer(graph, b));
            cuabi_buffer_destroy(b);
            expect_replay_spares_a_new_buffer(graph, b_address, 41);
            continue;
        }
        cuabi_buffer_destroy(b);
        // Not replayed: it would write C. The address coming back proves B was not kept.
        uint64_t c_address = 0;
        cuabi_buffer* c = create(kBytes, &c_address);
        EXPECT_EQ(c_address, b_address) << "a struct argument's buffer was retained without the explicit call";
        cuabi_buffer_destroy(c);
    }
}

TEST_F(GraphRetention, TheGraphGivesItsBuffersBackWhenItDies) {
    ASSERT_TRUE(driver.ok()) << "libcuda.so.1 lacks an entry point these tests use";
    constexpr size_t kLarge = size_t{512} << 20;
    cuabi_buffer* large = create(kLarge);
    ASSERT_NE(large, nullptr);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(large, 0, 0, 1, kLarge, capturing));
    cuabi_graph* graph = nullptr;
    ASSERT_OK(cuabi_graph_capture_end(capturing, nullptr, &graph));
    replay(graph, capturing);
    const size_t held = free_bytes();
    cuabi_buffer_destroy(large);
    EXPECT_LT(free_bytes(), held + (kLarge / 2)) << "the buffer was freed while its graph still uses it";

    cuabi_graph_destroy(graph);
    // The driver may hand the reference back on its own thread a little later; any cuabi call that
    // allocates or destroys releases what it handed back.
    bool released = false;
    for (int attempt = 0; attempt < 200 && !released; ++attempt) {
        cuabi_buffer_destroy(create(256));
        released = free_bytes() >= held + kLarge / 2;
        if (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(released) << "the graph's buffer was not freed after the graph died";
}

TEST_F(GraphRetention, ACaptureAnotherLibraryBeganKeepsCuabisBuffersAliveToo) {
    ASSERT_TRUE(driver.ok()) << "libcuda.so.1 lacks an entry point these tests use";
    void* native = nullptr;
    ASSERT_OK(cuabi_stream_get_native(capturing, &native));
    CUstream stream = static_cast<CUstream>(native);
    cuabi_buffer* b = create(kBytes);
    ASSERT_EQ(driver.stream_begin_capture(stream, CU_STREAM_CAPTURE_MODE_RELAXED), CUDA_SUCCESS);
    ASSERT_OK(cuabi_buffer_fill(b, 0, 0xDEADu, 4, kWords, capturing));
    CUgraph captured = nullptr;
    ASSERT_EQ(driver.stream_end_capture(stream, &captured), CUDA_SUCCESS);
    cuabi_buffer_destroy(b);

    cuabi_buffer* c = create(kBytes);
    const std::vector<uint32_t> values = pattern(kWords, 9);
    write(c, values);
    CUgraphExec exec = nullptr;
    ASSERT_EQ(driver.graph_instantiate(&exec, captured, 0), CUDA_SUCCESS);
    ASSERT_EQ(driver.graph_launch(exec, stream), CUDA_SUCCESS);
    ASSERT_EQ(driver.stream_synchronize(stream), CUDA_SUCCESS);
    expect_untouched(c, values);
    driver.graph_exec_destroy(exec);
    driver.graph_destroy(captured);
    cuabi_buffer_destroy(c);
}

}  // namespace
