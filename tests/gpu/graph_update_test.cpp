// Updates of an executable graph on a real GPU: new kernel arguments (table and packed) and
// geometry change the next replay; a memset node takes a new value; bad updates fail with their
// status and message and leave the node as it was; a new capture of the same sequence updates the
// graph in place, and one of another shape re-instantiates it and says why.
#include "graph_test_support.hpp"

namespace {

class GraphUpdateTest : public GraphInputTest {
protected:
    GraphUpdateTest() : GraphInputTest(3) {}

    void SetUp() override {
        GraphInputTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        out = buffer(kN * sizeof(float), &out_address);
        other_out = buffer(kN * sizeof(float), &other_out_address);
    }

    // A graph of one node: out = a * in + b.
    cuabi_graph* capture_scale_add(float a, float b) {
        unsigned n = kN;
        cuabi_kernel_arg args[] = {{&out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
        cuabi_launch_config launch = config(kGrid, kBlock);
        launch.stream = capturing;
        EXPECT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        EXPECT_OK(cuabi_launch(scale_add, &launch, args, 5));
        return end_capture(capturing);
    }

    void expect_scale_add(cuabi_buffer* result, float a, float b) {
        std::vector<float> values = read<float>(result, kN);
        for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], a * input[i] + b) << "element " << i;
    }

    void expect_poisoned(cuabi_buffer* result) {
        std::vector<uint8_t> bytes(kN * sizeof(float));
        ASSERT_OK(cuabi_buffer_read(result, 0, bytes.data(), bytes.size(), nullptr));
        EXPECT_EQ(bytes, poisoned(bytes.size()));
    }

    uint64_t out_address = 0, other_out_address = 0;
    cuabi_buffer* out = nullptr;
    cuabi_buffer* other_out = nullptr;
};

TEST_F(GraphUpdateTest, NewArgumentsChangeTheNextReplay) {
    cuabi_graph* graph = capture_scale_add(2.0f, 1.0f);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    expect_scale_add(out, 2.0f, 1.0f);

    const cuabi_counters before = counters_of(context);
    float a = 4.0f, b = 9.0f;
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&other_out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, args, 5));
    poison(out, kN * sizeof(float));
    replay(graph, capturing);
    expect_scale_add(other_out, 4.0f, 9.0f);
    expect_poisoned(out);
    EXPECT_EQ(counters_of(context).graph_updates - before.graph_updates, 1u);

    // Packed form, at the offsets the inventory reports.
    float packed_a = 6.0f, packed_b = 2.0f;
    cuabi_kernel_arg back[] = {{&out_address, 8}, {&in_address, 8}, {&packed_a, 4}, {&packed_b, 4}, {&n, 4}};
    std::vector<uint8_t> packed(node(graph, 0).param_bytes);
    for (size_t i = 0; i < 5; ++i) {
        size_t offset = 0, size = 0;
        ASSERT_OK(cuabi_graph_get_node_param_info(graph, 0, i, &offset, &size));
        ASSERT_EQ(size, back[i].size);
        std::memcpy(packed.data() + offset, back[i].value, size);
    }
    ASSERT_OK(cuabi_graph_update_kernel_args_packed(graph, 0, packed.data(), packed.size()));
    replay(graph, capturing);
    expect_scale_add(out, 6.0f, 2.0f);
    size_t offset = 0, size = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_node_param_info(graph, 0, 5, &offset, &size), CUABI_ERROR_OUT_OF_BOUNDS);
}

TEST_F(GraphUpdateTest, BadArgumentUpdatesFailWithTheirStatusAndLeaveTheNodeAsItWas) {
    cuabi_graph* graph = capture_scale_add(2.0f, 1.0f);
    ASSERT_NE(graph, nullptr);
    float a = 4.0f, b = 9.0f;
    unsigned n = kN;
    uint16_t short_n = 1;
    cuabi_kernel_arg args[] = {{&other_out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args(graph, 0, args, 4), CUABI_ERROR_ARGUMENT_COUNT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("scale_add"), std::string::npos);
    cuabi_kernel_arg wrong_size[] = {{&other_out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&short_n, 2}};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args(graph, 0, wrong_size, 5), CUABI_ERROR_ARGUMENT_SIZE);
    std::vector<uint8_t> packed(node(graph, 0).param_bytes + 4);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args_packed(graph, 0, packed.data(), packed.size()),
                           CUABI_ERROR_ARGUMENT_SIZE);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args(graph, 1, args, 5), CUABI_ERROR_GRAPH_NODE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("node 1"), std::string::npos);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memset_value(graph, 0, 1), CUABI_ERROR_GRAPH_NODE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("kernel node"), std::string::npos);

    replay(graph, capturing);
    expect_scale_add(out, 2.0f, 1.0f);
    expect_poisoned(other_out);
}

TEST_F(GraphUpdateTest, NonKernelNodesRefuseKernelUpdates) {
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0x11u, 1, kN * sizeof(float), capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    float a = 1.0f;
    cuabi_kernel_arg args[] = {{&a, 4}};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args(graph, 0, args, 1), CUABI_ERROR_GRAPH_NODE);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("memset node"), std::string::npos);
    const uint32_t dims[3] = {1, 1, 1};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_geometry(graph, 0, dims, dims, 0), CUABI_ERROR_GRAPH_NODE);
    size_t offset = 0, size = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_node_param_info(graph, 0, 0, &offset, &size), CUABI_ERROR_GRAPH_NODE);
}

TEST_F(GraphUpdateTest, AMemsetNodeTakesANewValue) {
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_fill(out, 0, 0x1234u, 2, kN * 2, capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    std::vector<uint16_t> values = read<uint16_t>(out, kN * 2);
    for (uint16_t value : values) ASSERT_EQ(value, 0x1234u);

    ASSERT_OK(cuabi_graph_update_memset_value(graph, 0, 0xBEEFu));
    EXPECT_EQ(node(graph, 0).memset_value, 0xBEEFu);
    replay(graph, capturing);
    values = read<uint16_t>(out, kN * 2);
    for (uint16_t value : values) ASSERT_EQ(value, 0xBEEFu);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memset_value(graph, 0, 0x10000u), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("0x10000"), std::string::npos);
}

TEST_F(GraphUpdateTest, NewGeometryChangesTheNextReplay) {
    uint64_t address = 0;
    cuabi_buffer* indices = buffer(kN * sizeof(uint32_t), &address);
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&address, 8}, {&n, 4}};
    cuabi_launch_config half = config(kGrid / 2, kBlock);  // covers the first half only
    half.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(write_index, &half, args, 2));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    std::vector<uint32_t> values = read<uint32_t>(indices, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], i < kN / 2 ? 3u * i + 1u : 0xA5A5A5A5u) << "element " << i;

    const uint32_t grid[3] = {kGrid / 4, 1, 1};
    const uint32_t block[3] = {kBlock * 4, 1, 1};
    ASSERT_OK(cuabi_graph_update_kernel_geometry(graph, 0, grid, block, 0));
    cuabi_graph_node_info info = node(graph, 0);
    EXPECT_EQ(info.grid[0], kGrid / 4);
    EXPECT_EQ(info.block[0], kBlock * 4);
    replay(graph, capturing);
    values = read<uint32_t>(indices, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "element " << i;

    const uint32_t too_big[3] = {4096, 1, 1};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_geometry(graph, 0, grid, too_big, 0), CUABI_ERROR_LAUNCH_BLOCK);
    const uint32_t zero[3] = {0, 1, 1};
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_geometry(graph, 0, zero, block, 0), CUABI_ERROR_LAUNCH_GRID);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_geometry(graph, 0, grid, block, 16u << 20),
                           CUABI_ERROR_LAUNCH_SHARED_MEMORY);
    EXPECT_EQ(node(graph, 0).block[0], kBlock * 4) << "a refused update leaves the node as it was";
}

TEST_F(GraphUpdateTest, ANewCaptureOfTheSameSequenceUpdatesInPlace) {
    cuabi_graph* graph = capture_scale_add(2.0f, 1.0f);
    ASSERT_NE(graph, nullptr);
    cuabi_kernel* reported = node(graph, 0).kernel;
    const cuabi_counters before = counters_of(context);
    float a = 5.0f, b = 3.0f;
    unsigned n = kN;
    cuabi_kernel_arg args[] = {{&other_out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(scale_add, &launch, args, 5));
    cuabi_graph_update_info info = CUABI_GRAPH_UPDATE_INFO_INIT;
    ASSERT_OK(cuabi_graph_capture_end_update(capturing, graph, CUABI_GRAPH_UPDATE_DEFAULT, &info));
    EXPECT_EQ(info.reinstantiated, 0u);
    EXPECT_STREQ(info.reason, "");
    EXPECT_EQ(info.has_error_node, 0u);
    const cuabi_counters after = counters_of(context);
    EXPECT_EQ(after.graph_updates - before.graph_updates, 1u);
    EXPECT_EQ(after.graph_reinstantiations - before.graph_reinstantiations, 0u);
    EXPECT_EQ(after.graph_instantiations - before.graph_instantiations, 0u);
    EXPECT_EQ(node(graph, 0).kernel, reported) << "the inventory's kernel handle stays the same";

    replay(graph, capturing);
    expect_scale_add(other_out, 5.0f, 3.0f);
    expect_poisoned(out);

    // Node updates still reach the executable after a whole-graph update.
    float c = 7.0f;
    cuabi_kernel_arg again[] = {{&out_address, 8}, {&in_address, 8}, {&c, 4}, {&b, 4}, {&n, 4}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, again, 5));
    replay(graph, capturing);
    expect_scale_add(out, 7.0f, 3.0f);
}

TEST_F(GraphUpdateTest, ANewCaptureOfAnotherShapeReinstantiatesAndSaysWhy) {
    cuabi_graph* graph = capture_scale_add(2.0f, 1.0f);
    ASSERT_NE(graph, nullptr);
    float a = 5.0f, b = 3.0f, c = 10.0f;
    unsigned n = kN;
    cuabi_kernel_arg first[] = {{&other_out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    cuabi_kernel_arg second[] = {{&other_out_address, 8}, {&c, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    auto capture_two_kernels = [&] {
        ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        ASSERT_OK(cuabi_launch(scale_add, &launch, first, 5));
        ASSERT_OK(cuabi_launch(add_in_place, &launch, second, 3));
    };

    // Told not to re-instantiate: refused, graph unchanged, the reason given.
    capture_two_kernels();
    cuabi_graph_update_info info = CUABI_GRAPH_UPDATE_INFO_INIT;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end_update(capturing, graph, CUABI_GRAPH_UPDATE_NO_REINSTANTIATE, &info),
                           CUABI_ERROR_GRAPH_UPDATE);
    EXPECT_EQ(info.reinstantiated, 0u);
    EXPECT_NE(std::string(info.reason), "");
    int32_t active = CUABI_CAPTURE_STATUS_ACTIVE;
    ASSERT_OK(cuabi_graph_capture_get_status(capturing, &active));
    EXPECT_EQ(active, CUABI_CAPTURE_STATUS_NONE);
    replay(graph, capturing);
    expect_scale_add(out, 2.0f, 1.0f);
    expect_poisoned(other_out);

    // Allowed: re-instantiated, and it says so.
    const cuabi_counters before = counters_of(context);
    capture_two_kernels();
    info = cuabi_graph_update_info CUABI_GRAPH_UPDATE_INFO_INIT;
    ASSERT_OK(cuabi_graph_capture_end_update(capturing, graph, CUABI_GRAPH_UPDATE_DEFAULT, &info));
    EXPECT_EQ(info.reinstantiated, 1u);
    EXPECT_NE(std::string(info.reason).find("2 nodes"), std::string::npos) << info.reason;
    EXPECT_EQ(counters_of(context).graph_reinstantiations - before.graph_reinstantiations, 1u);
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    EXPECT_EQ(count, 2u);
    replay(graph, capturing);
    std::vector<float> values = read<float>(other_out, kN);
    for (unsigned i = 0; i < kN; ++i) ASSERT_EQ(values[i], a * input[i] + b + c) << "element " << i;
}

TEST_F(GraphUpdateTest, TheDriversRefusalIsReportedWithItsNode) {
    // Same node kinds, different dependencies: two independent kernels on forked streams join
    // into one node list of the same length, which the driver refuses as a topology change.
    cuabi_graph* graph = nullptr;
    float a = 1.0f, b = 2.0f, c = 3.0f;
    unsigned n = kN;
    cuabi_kernel_arg first[] = {{&out_address, 8}, {&in_address, 8}, {&a, 4}, {&b, 4}, {&n, 4}};
    cuabi_kernel_arg second[] = {{&other_out_address, 8}, {&c, 4}, {&n, 4}};
    cuabi_launch_config launch = config(kGrid, kBlock);
    launch.stream = capturing;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_launch(scale_add, &launch, first, 5));
    ASSERT_OK(cuabi_launch(add_in_place, &launch, second, 3));
    graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);

    cuabi_stream* side = stream();
    cuabi_event* fork = nullptr;
    cuabi_event* join = nullptr;
    ASSERT_OK(cuabi_event_create(context, nullptr, &fork));
    ASSERT_OK(cuabi_event_create(context, nullptr, &join));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_event_record(fork, capturing));
    ASSERT_OK(cuabi_stream_wait_event(side, fork));
    ASSERT_OK(cuabi_launch(scale_add, &launch, first, 5));
    cuabi_launch_config on_side = launch;
    on_side.stream = side;
    ASSERT_OK(cuabi_launch(add_in_place, &on_side, second, 3));
    ASSERT_OK(cuabi_event_record(join, side));
    ASSERT_OK(cuabi_stream_wait_event(capturing, join));
    cuabi_graph_update_info info = CUABI_GRAPH_UPDATE_INFO_INIT;
    ASSERT_OK(cuabi_graph_capture_end_update(capturing, graph, CUABI_GRAPH_UPDATE_DEFAULT, &info));
    EXPECT_EQ(info.reinstantiated, 1u);
    EXPECT_EQ(info.driver_result, 2) << "CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED; reason: " << info.reason;
    EXPECT_NE(std::string(info.reason).find("topology"), std::string::npos) << info.reason;
    poison(out, kN * sizeof(float));
    replay(graph, capturing);
    expect_scale_add(out, 1.0f, 2.0f);
    cuabi_event_destroy(fork);
    cuabi_event_destroy(join);
}

}  // namespace
