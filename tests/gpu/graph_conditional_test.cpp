// Conditional graph nodes on a GPU: while, if (with and without an else body), switch and nested
// nodes captured with cuabi compute what their conditions say; the inventory and DOT text show
// them; refusals end the capture and say why; buffers used only in bodies stay alive with the graph.
#include <cstdint>
#include <string>
#include <vector>

#include "graph_test_support.hpp"

namespace {

// Under NVRTC a kernel declares the device function that sets a condition (cuabi.h says so).
const char* const kConditionalKernels = R"(
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
extern "C" __global__ void count_down(unsigned* counter, unsigned* iterations, cudaGraphConditionalHandle condition) {
    *iterations += 1u;
    if (--*counter == 0u) cudaGraphSetConditional(condition, 0u);
}
extern "C" __global__ void set_condition(cudaGraphConditionalHandle condition, unsigned value) {
    cudaGraphSetConditional(condition, value);
}
extern "C" __global__ void add_value(unsigned* out, unsigned value) { *out += value; }
)";

class GraphConditionalTest : public GraphTest {
protected:
    void SetUp() override {
        GraphTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        int32_t version = 0;
        ASSERT_OK(cuabi_driver_get_version(&version));
        if (version < 12080) GTEST_SKIP() << "conditional nodes with else and switch bodies need a CUDA 12.8 driver";
        count_down = kernel(kConditionalKernels, "count_down");
        set_condition = kernel(kConditionalKernels, "set_condition");
        add_value = kernel(kConditionalKernels, "add_value");
        ASSERT_NE(count_down, nullptr);
        ASSERT_NE(set_condition, nullptr);
        ASSERT_NE(add_value, nullptr);
        counter = buffer(sizeof(uint32_t), &counter_address);
        iterations = buffer(sizeof(uint32_t), &iterations_address);
        out = buffer(sizeof(uint32_t), &out_address);
        ASSERT_NE(counter, nullptr);
        ASSERT_NE(iterations, nullptr);
        ASSERT_NE(out, nullptr);
        store(iterations, 0);
        store(out, 0);
    }

    void store(cuabi_buffer* to, uint32_t value) { write<uint32_t>(to, {value}); }
    uint32_t load(cuabi_buffer* from) { return read<uint32_t>(from, 1)[0]; }

    void launch_one(cuabi_kernel* which, std::vector<cuabi_kernel_arg> args) {
        cuabi_launch_config one = config(1, 1);
        one.stream = capturing;
        ASSERT_OK(cuabi_launch(which, &one, args.data(), args.size()));
    }
    void count_down_once(const uint64_t* condition) {
        launch_one(count_down, {{&counter_address, 8}, {&iterations_address, 8}, {condition, 8}});
    }
    void set_to(const uint64_t* condition, const uint32_t* value) {
        launch_one(set_condition, {{condition, 8}, {value, 4}});
    }
    void add(const uint32_t* value) { launch_one(add_value, {{&out_address, 8}, {value, 4}}); }

    // A graph that is one while node counting `counter` down to zero.
    cuabi_graph* while_graph(uint64_t* out_condition) {
        EXPECT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        EXPECT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, out_condition));
        EXPECT_OK(cuabi_graph_capture_conditional_begin(capturing, *out_condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
        count_down_once(out_condition);
        EXPECT_OK(cuabi_graph_capture_conditional_end(capturing));
        return end_capture(capturing);
    }

    // Begins a capture: set_condition(*condition, *choice), then a switch node whose bodies add
    // 1, 2 and 4 to out; the stream is left capturing the last body.
    void capture_switch_to_last_body(uint64_t* condition, const uint32_t* choice) {
        static const uint32_t values[3] = {1, 2, 4};
        ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        ASSERT_OK(cuabi_graph_condition_create(capturing, 0, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, condition));
        set_to(condition, choice);
        ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, *condition, CUABI_GRAPH_CONDITIONAL_SWITCH, 3));
        for (int body = 0; body < 3; ++body) {
            if (body > 0) ASSERT_OK(cuabi_graph_capture_conditional_next(capturing));
            add(&values[body]);
        }
    }

    int32_t capture_status() {
        int32_t status = -1;
        EXPECT_OK(cuabi_graph_capture_get_status(capturing, &status));
        return status;
    }

    cuabi_kernel* count_down = nullptr;
    cuabi_kernel* set_condition = nullptr;
    cuabi_kernel* add_value = nullptr;
    cuabi_buffer* counter = nullptr;
    cuabi_buffer* iterations = nullptr;
    cuabi_buffer* out = nullptr;
    // The kernels' arguments: the buffers' device addresses.
    uint64_t counter_address = 0, iterations_address = 0, out_address = 0;
};

TEST_F(GraphConditionalTest, AWhileNodeRunsItsBodyUntilAKernelClearsTheCondition) {
    uint64_t condition = 0;
    cuabi_graph* graph = while_graph(&condition);
    ASSERT_NE(graph, nullptr);
    store(counter, 5);
    replay(graph, capturing);
    EXPECT_EQ(load(iterations), 5u);
    EXPECT_EQ(load(counter), 0u);
    // CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT: the next replay starts with the condition at 1 again.
    store(counter, 3);
    replay(graph, capturing);
    EXPECT_EQ(load(iterations), 8u);
}

TEST_F(GraphConditionalTest, AnIfNodeRunsItsBodyOrItsElseBodyAsTheConditionSays) {
    uint64_t condition = 0;
    const uint32_t taken = 1, one = 1, ten = 10;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 0, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition));
    set_to(&condition, &taken);
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_IF, 2));
    add(&one);
    ASSERT_OK(cuabi_graph_capture_conditional_next(capturing));
    add(&ten);
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    EXPECT_EQ(load(out), 1u);  // taken: the body, not the else body
    // Not taken: the kernel that sets the condition (node 0) now sets 0.
    const uint32_t not_taken = 0;
    cuabi_kernel_arg args[] = {{&condition, 8}, {&not_taken, 4}};
    ASSERT_EQ(node(graph, 0).kind, CUABI_GRAPH_NODE_KERNEL);
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, args, 2));
    replay(graph, capturing);
    EXPECT_EQ(load(out), 11u);
}

TEST_F(GraphConditionalTest, AnIfNodeWithoutElseBodyRunsNothingWhenNotTaken) {
    uint64_t condition = 0;
    const uint32_t one = 1;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 0, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_IF, 1));
    add(&one);
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    add(&one);  // after the node: always runs
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    EXPECT_EQ(load(out), 1u);
}

TEST_F(GraphConditionalTest, ASwitchNodeRunsTheBodyTheConditionNamesAndNoneBeyondTheLast) {
    uint64_t condition = 0;
    const uint32_t choice = 2;
    capture_switch_to_last_body(&condition, &choice);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_next(capturing), CUABI_ERROR_OUT_OF_BOUNDS);
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);  // the failure ended the capture

    capture_switch_to_last_body(&condition, &choice);
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    replay(graph, capturing);
    EXPECT_EQ(load(out), 4u);
    const uint32_t beyond = 7;
    cuabi_kernel_arg args[] = {{&condition, 8}, {&beyond, 4}};
    ASSERT_OK(cuabi_graph_update_kernel_args(graph, 0, args, 2));
    replay(graph, capturing);
    EXPECT_EQ(load(out), 4u);
}

TEST_F(GraphConditionalTest, ConditionalNodesNest) {
    uint64_t outer = 0, inner = 0;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &outer));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, outer, CUABI_GRAPH_CONDITIONAL_IF, 1));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &inner));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, inner, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
    count_down_once(&inner);
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    store(counter, 4);
    replay(graph, capturing);
    EXPECT_EQ(load(iterations), 4u);
    cuabi_graph_node_info info = node(graph, 0);
    EXPECT_EQ(info.conditional_type, CUABI_GRAPH_CONDITIONAL_IF);
    EXPECT_EQ(info.conditional_body_nodes, 2u);  // the while node and, in its body, count_down
}

TEST_F(GraphConditionalTest, TheInventoryAndTheDotTextShowConditionalNodesAndTheirBodies) {
    uint64_t condition = 0;
    cuabi_graph* graph = while_graph(&condition);
    ASSERT_NE(graph, nullptr);
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    ASSERT_EQ(count, 1u);
    cuabi_graph_node_info info = node(graph, 0);
    EXPECT_EQ(info.kind, CUABI_GRAPH_NODE_CONDITIONAL);
    EXPECT_EQ(info.conditional_type, CUABI_GRAPH_CONDITIONAL_WHILE);
    EXPECT_EQ(info.conditional_body_count, 1u);
    EXPECT_EQ(info.condition, condition);
    EXPECT_EQ(info.conditional_body_nodes, 1u);
    EXPECT_EQ(info.kernel, nullptr);
    // Kernel-node calls refuse it by kind, as for any node that is not a kernel node.
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_kernel_args(graph, 0, nullptr, 0), CUABI_ERROR_GRAPH_NODE);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_set_node_enabled(graph, 0, 0), CUABI_ERROR_GRAPH_NODE);
    size_t size = 0;
    ASSERT_OK(cuabi_graph_get_dot(graph, CUABI_GRAPH_DOT_DEFAULT, nullptr, 0, &size));
    std::string text(size, '\0');
    ASSERT_OK(cuabi_graph_get_dot(graph, CUABI_GRAPH_DOT_DEFAULT, &text[0], text.size(), &size));
    EXPECT_NE(text.find("count_down"), std::string::npos) << text;  // the body's kernel
}

TEST_F(GraphConditionalTest, AConditionOfAnotherCaptureOrAnotherGraphIsRefusedAndTheCaptureEnded) {
    uint64_t stale = 0;
    ASSERT_NE(while_graph(&stale), nullptr);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_begin(capturing, stale, CUABI_GRAPH_CONDITIONAL_WHILE, 1),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("was not made by cuabi_graph_condition_create"),
              std::string::npos)
        << cuabi_last_error_message();
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);

    uint64_t root = 0, forged = 0x1234567;
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_DEFAULT, &root));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_begin(capturing, forged, CUABI_GRAPH_CONDITIONAL_IF, 1),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);

    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_DEFAULT, &root));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, root, CUABI_GRAPH_CONDITIONAL_IF, 1));
    // Inside the body, the root's condition belongs to another graph.
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_begin(capturing, root, CUABI_GRAPH_CONDITIONAL_IF, 1),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(cuabi_last_error_message()).find("another graph of this capture"), std::string::npos)
        << cuabi_last_error_message();
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);
}

TEST_F(GraphConditionalTest, CaptureCallsOutOfOrderAreRefusedWithAFix) {
    uint64_t condition = 0;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_condition_create(capturing, 1, 0, &condition), CUABI_ERROR_CAPTURE);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_end(capturing), CUABI_ERROR_CAPTURE);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_next(capturing), CUABI_ERROR_CAPTURE);
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);
    // Ending the capture inside a body discards it.
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, 0, &condition));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
    cuabi_graph* graph = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end(capturing, nullptr, &graph), CUABI_ERROR_CAPTURE);
    EXPECT_EQ(graph, nullptr);
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);
    // A bad type inside a body ends the whole capture too.
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, 0, &condition));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_conditional_begin(capturing, condition, 9, 1),
                           CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_EQ(capture_status(), CUABI_CAPTURE_STATUS_NONE);
}

TEST_F(GraphConditionalTest, ABufferUsedOnlyInABodyLivesAsLongAsTheGraph) {
    const size_t bytes = 1 << 20;
    uint64_t address = 0, condition = 0;
    cuabi_buffer* scratch = nullptr;
    ASSERT_OK(cuabi_buffer_create(context, bytes, nullptr, &scratch));
    cuabi_buffer* result = buffer(bytes, &address);
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_IF, 1));
    ASSERT_OK(cuabi_buffer_fill(scratch, 0, 0x11, 1, bytes, capturing));
    ASSERT_OK(cuabi_buffer_copy(result, 0, scratch, 0, bytes, capturing));
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    cuabi_buffer_destroy(scratch);  // the graph keeps its memory
    cuabi_buffer* intruder = buffer(bytes, &address);  // poisoned with 0xA5
    replay(graph, capturing);
    EXPECT_EQ(read<uint8_t>(result, bytes), std::vector<uint8_t>(bytes, 0x11));
    EXPECT_EQ(read<uint8_t>(intruder, bytes), std::vector<uint8_t>(bytes, 0xA5));
}

TEST_F(GraphConditionalTest, AWholeGraphUpdateComparesConditionalBodies) {
    uint64_t condition = 0;
    cuabi_graph* graph = while_graph(&condition);
    ASSERT_NE(graph, nullptr);
    // The same node with two kernels in its body: not updatable in place, and cuabi says why.
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_graph_condition_create(capturing, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition));
    ASSERT_OK(cuabi_graph_capture_conditional_begin(capturing, condition, CUABI_GRAPH_CONDITIONAL_WHILE, 1));
    const uint32_t one = 1;
    add(&one);
    count_down_once(&condition);
    ASSERT_OK(cuabi_graph_capture_conditional_end(capturing));
    cuabi_graph_update_info info = CUABI_GRAPH_UPDATE_INFO_INIT;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_capture_end_update(capturing, graph, CUABI_GRAPH_UPDATE_NO_REINSTANTIATE, &info),
                           CUABI_ERROR_GRAPH_UPDATE);
    EXPECT_NE(std::string(info.reason).find("(1 body graphs, 2 nodes in them) in the new capture"), std::string::npos) << info.reason;
    store(counter, 2);
    replay(graph, capturing);  // unchanged: one kernel per iteration
    EXPECT_EQ(load(iterations), 2u);
    EXPECT_EQ(load(out), 0u);
}

}  // namespace
