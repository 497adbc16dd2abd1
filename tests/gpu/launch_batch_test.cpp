// cuabi_launch_batch on a device: dependent kernels in one batch compute the right result (both
// argument forms), the counters count every item, a refused item k leaves 0..k-1 submitted and
// nothing after it, with k's status and index, and a batch inside a capture becomes its nodes in
// order.
#include <random>
#include <string>
#include <vector>

#include "graph_test_support.hpp"

namespace {

class LaunchBatch : public GraphInputTest {
protected:
    LaunchBatch() : GraphInputTest(29) {}

    void SetUp() override {
        GraphInputTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        data = buffer(kN * sizeof(float), &data_address);
        ASSERT_NE(data, nullptr);
        launch = config(kGrid, kBlock);
        launch.stream = capturing;
    }

    // data = 2 * in + 1, then 15 times data += k + 1 (k = 1..15): item k reads what k-1 wrote.
    // Items alternate between the table and the packed form.
    void build_items() {
        scale_args = {{&data_address, 8}, {&in_address, 8}, {&two, 4}, {&one, 4}, {&n, 4}};
        items.assign(16, cuabi_launch_item{});
        items[0].kernel = scale_add;
        items[0].config = &launch;
        items[0].args = scale_args.data();
        items[0].arg_count = scale_args.size();
        addends.resize(16);
        packed.resize(16);
        for (unsigned k = 1; k < 16; ++k) {
            addends[k] = static_cast<float>(k + 1);
            items[k].kernel = add_in_place;
            items[k].config = &launch;
            add_args[k] = {{&data_address, 8}, {&addends[k], 4}, {&n, 4}};
            if (k % 2 == 0) {
                packed[k] = pack(add_in_place, add_args[k]);
                items[k].packed = packed[k].data();
                items[k].packed_size = packed[k].size();
            } else {
                items[k].args = add_args[k].data();
                items[k].arg_count = add_args[k].size();
            }
        }
    }

    float expected(unsigned i, unsigned through_item) const {
        float value = 2.0f * input[i] + 1.0f;
        for (unsigned k = 1; k <= through_item; ++k) value += static_cast<float>(k + 1);
        return value;
    }

    cuabi_buffer* data = nullptr;
    uint64_t data_address = 0;
    cuabi_launch_config launch{};
    float two = 2.0f, one = 1.0f;
    unsigned n = kN;
    std::vector<cuabi_kernel_arg> scale_args;
    std::vector<cuabi_kernel_arg> add_args[16];
    std::vector<float> addends;
    std::vector<std::vector<uint8_t>> packed;
    std::vector<cuabi_launch_item> items;
};

TEST_F(LaunchBatch, DependentKernelsComputeTheRightResultAndAreCounted) {
    build_items();
    const cuabi_counters before = counters_of(context);
    size_t submitted = 0;
    ASSERT_OK(cuabi_launch_batch(items.data(), items.size(), &submitted));
    EXPECT_EQ(submitted, 16u);
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    const cuabi_counters after = counters_of(context);
    EXPECT_EQ(after.launches - before.launches, 16u);
    EXPECT_EQ(after.launches_packed - before.launches_packed, 7u);  // items 2, 4, ..., 14
    const std::vector<float> result = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(result[i], expected(i, 15)) << "element " << i;
}

// Items 1..15 all packed, for one kernel and one config: they go the fast path as one run (the
// kernel and stream pinned once). Every item still counts, and the result is the same. A packed
// buffer of the wrong size inside the run stops the batch at that item, with the single launch's
// status and message, the run before it submitted; a copy of the config (another pointer) starts
// a new run and changes nothing.
TEST_F(LaunchBatch, ARunOfPackedItemsLaunchesAndCountsEachAndStopsAtABadOne) {
    const cuabi_launch_config copy = launch;
    for (const char* what : {"whole", "config copy at 7", "short buffer at 9"}) {
        SCOPED_TRACE(what);
        build_items();
        for (unsigned k = 1; k < 16; ++k) {
            packed[k] = pack(add_in_place, add_args[k]);
            items[k].args = nullptr;
            items[k].arg_count = 0;
            items[k].packed = packed[k].data();
            items[k].packed_size = packed[k].size();
        }
        const bool short_buffer = what[0] == 's';
        if (what[0] == 'c') items[7].config = &copy;
        if (short_buffer) items[9].packed_size -= 1;
        poison(data, kN * sizeof(float));
        const cuabi_counters before = counters_of(context);
        size_t submitted = 99;
        if (short_buffer) {
            EXPECT_STATUS_WITH_FIX(cuabi_launch_batch(items.data(), items.size(), &submitted),
                                   CUABI_ERROR_ARGUMENT_SIZE);
            EXPECT_EQ(message().rfind("cuabi_launch_batch item 9 of 16: ", 0), 0u) << message();
        } else {
            ASSERT_OK(cuabi_launch_batch(items.data(), items.size(), &submitted));
        }
        const unsigned done = short_buffer ? 9 : 16;
        EXPECT_EQ(submitted, done);
        ASSERT_OK(cuabi_stream_synchronize(capturing));
        const cuabi_counters after = counters_of(context);
        EXPECT_EQ(after.launches - before.launches, done);
        EXPECT_EQ(after.launches_packed - before.launches_packed, done - 1);
        const std::vector<float> result = read<float>(data, kN);
        for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(result[i], expected(i, done - 1)) << "element " << i;
    }
}

// The refusals the single launch makes, each at item 5: geometry, argument size, and (with two
// devices) a stream of another context. Items 0..4 ran, nothing after 5 did.
TEST_F(LaunchBatch, RefusedItemStopsTheBatchWithItsIndex) {
    cuabi_launch_config too_large = launch;
    too_large.block[0] = 1024;
    too_large.block[1] = 2;
    uint64_t wide = 0;
    std::vector<cuabi_kernel_arg> wrong_size = {{&data_address, 8}, {&wide, 8}, {&n, 4}};
    struct Refusal {
        const char* what;
        cuabi_status status;
        const char* fragment;
    };
    const Refusal refusals[] = {{"geometry", CUABI_ERROR_LAUNCH_BLOCK, "block (1024,2,1) has 2048 threads"},
                                {"argument size", CUABI_ERROR_ARGUMENT_SIZE, "args[1] is 8 bytes"}};
    for (int r = 0; r < 2; ++r) {
        SCOPED_TRACE(refusals[r].what);
        build_items();
        if (r == 0) items[5].config = &too_large;
        if (r == 1) {
            items[5].args = wrong_size.data();
            items[5].arg_count = wrong_size.size();
        }
        poison(data, kN * sizeof(float));
        const cuabi_counters before = counters_of(context);
        size_t submitted = 99;
        EXPECT_STATUS_WITH_FIX(cuabi_launch_batch(items.data(), items.size(), &submitted), refusals[r].status);
        const std::string text = message();
        EXPECT_EQ(text.rfind("cuabi_launch_batch item 5 of 16: ", 0), 0u) << text;
        EXPECT_NE(text.find(refusals[r].fragment), std::string::npos) << text;
        EXPECT_EQ(submitted, 5u);
        ASSERT_OK(cuabi_stream_synchronize(capturing));
        EXPECT_EQ(counters_of(context).launches - before.launches, 5u);
        const std::vector<float> result = read<float>(data, kN);
        for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(result[i], expected(i, 4)) << "element " << i;
    }
}

TEST_F(LaunchBatch, ItemOnAnotherContextsStreamIsRefusedWithItsIndex) {
    cuabi_stream* foreign = nullptr;
    other_device_stream(&foreign);
    if (foreign == nullptr) return;  // skipped with one device, or failed
    build_items();
    cuabi_launch_config elsewhere = launch;
    elsewhere.stream = foreign;
    items[3].config = &elsewhere;
    size_t submitted = 99;
    EXPECT_STATUS_WITH_FIX(cuabi_launch_batch(items.data(), items.size(), &submitted), CUABI_ERROR_CONTEXT_MISMATCH);
    EXPECT_EQ(message().rfind("cuabi_launch_batch item 3 of 16: ", 0), 0u) << message();
    EXPECT_EQ(submitted, 3u);
    ASSERT_OK(cuabi_stream_synchronize(capturing));
    const std::vector<float> result = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(result[i], expected(i, 2)) << "element " << i;
}

TEST_F(LaunchBatch, BatchInsideACaptureBecomesItsNodesInOrder) {
    build_items();
    poison(data, kN * sizeof(float));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    size_t submitted = 0;
    ASSERT_OK(cuabi_launch_batch(items.data(), items.size(), &submitted));
    EXPECT_EQ(submitted, 16u);
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    ASSERT_EQ(count, 16u);
    EXPECT_EQ(kernel_name(graph, 0), "scale_add");
    for (size_t k = 1; k < 16; ++k) {
        EXPECT_EQ(node(graph, k).kind, CUABI_GRAPH_NODE_KERNEL) << "node " << k;
        EXPECT_EQ(kernel_name(graph, k), "add_in_place") << "node " << k;
    }
    // Captured, not run; the replay runs them in order (each reads what the one before wrote).
    EXPECT_EQ(read<uint32_t>(data, 1)[0], 0xA5A5A5A5u);
    replay(graph, capturing);
    const std::vector<float> result = read<float>(data, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(result[i], expected(i, 15)) << "element " << i;
}

}  // namespace
