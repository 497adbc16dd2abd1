// Node control of 1.1: memcpy node updates, turning nodes off and on, DOT dumps.
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "graph_test_support.hpp"

namespace {

constexpr unsigned kN = 1024;

class GraphControlTest : public GraphTest {
protected:
    // A graph of write_index(out) then add_in_place(out, 10): out[i] = 3i + 11 after a replay.
    cuabi_graph* two_kernels(cuabi_buffer** out_buffer) {
        uint64_t address = 0;
        *out_buffer = buffer(kN * sizeof(float), &address);
        unsigned n = kN;
        float ten = 10.0f;
        cuabi_kernel_arg index_args[] = {{&address, 8}, {&n, 4}};
        cuabi_kernel_arg add_args[] = {{&address, 8}, {&ten, 4}, {&n, 4}};
        cuabi_launch_config launch = config(kN / 256, 256);
        launch.stream = capturing;
        EXPECT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
        EXPECT_OK(cuabi_launch(write_index, &launch, index_args, 2));
        EXPECT_OK(cuabi_launch(add_in_place, &launch, add_args, 3));
        return end_capture(capturing);
    }

    size_t node_named(cuabi_graph* graph, const char* name) {
        size_t count = 0;
        EXPECT_OK(cuabi_graph_get_node_count(graph, &count));
        for (size_t i = 0; i < count; ++i)
            if (node(graph, i).kind == CUABI_GRAPH_NODE_KERNEL && kernel_name(graph, i) == name) return i;
        ADD_FAILURE() << "no node runs " << name;
        return 0;
    }

    static std::string dot(cuabi_graph* graph, uint32_t flags) {
        size_t size = 0;
        EXPECT_OK(cuabi_graph_get_dot(graph, flags, nullptr, 0, &size));
        std::string text(size, '\0');
        EXPECT_OK(cuabi_graph_get_dot(graph, flags, &text[0], text.size(), &size));
        text.resize(size == 0 ? 0 : size - 1);
        return text;
    }
};

TEST_F(GraphControlTest, ADisabledKernelNodeIsSkippedUntilTurnedBackOn) {
    cuabi_buffer* out = nullptr;
    cuabi_graph* graph = two_kernels(&out);
    ASSERT_NE(graph, nullptr);
    const size_t add = node_named(graph, "add_in_place");
    uint32_t enabled = 7;
    ASSERT_OK(cuabi_graph_get_node_enabled(graph, add, &enabled));
    EXPECT_EQ(enabled, 1u);
    replay(graph, capturing);
    std::vector<uint32_t> values = read<uint32_t>(out, kN);
    // write_index stores unsigned 3i + 1; add_in_place adds 10.0f to it read as a float: compare the
    // first replay with the later ones instead of computing float bits here.
    const std::vector<uint32_t> with_add = values;

    ASSERT_OK(cuabi_graph_set_node_enabled(graph, add, 0));
    ASSERT_OK(cuabi_graph_get_node_enabled(graph, add, &enabled));
    EXPECT_EQ(enabled, 0u);
    replay(graph, capturing);
    values = read<uint32_t>(out, kN);
    for (uint32_t i = 0; i < kN; ++i) ASSERT_EQ(values[i], 3u * i + 1u) << "at " << i << ": the disabled node ran";

    ASSERT_OK(cuabi_graph_set_node_enabled(graph, add, 1));
    replay(graph, capturing);
    EXPECT_EQ(read<uint32_t>(out, kN), with_add);
    EXPECT_NE(with_add[1], 4u) << "add_in_place changed nothing: the test proves nothing";
    size_t count = 0;
    ASSERT_OK(cuabi_graph_get_node_count(graph, &count));
    EXPECT_STATUS_WITH_FIX(cuabi_graph_set_node_enabled(graph, count, 0), CUABI_ERROR_GRAPH_NODE);
}

TEST_F(GraphControlTest, AMemcpyNodeUpdateChangesWhatReplaysCopy) {
    constexpr size_t kBytes = 4096;
    uint64_t unused = 0;
    cuabi_buffer* a_src = buffer(kBytes, &unused);
    cuabi_buffer* a_dst = buffer(kBytes, &unused);
    cuabi_buffer* b_src = buffer(2 * kBytes, &unused);
    cuabi_buffer* b_dst = buffer(kBytes, &unused);
    const std::vector<uint8_t> first = random_bytes(kBytes, 1), second = random_bytes(2 * kBytes, 2);
    ASSERT_OK(cuabi_buffer_write(a_src, 0, first.data(), kBytes, nullptr));
    ASSERT_OK(cuabi_buffer_write(b_src, 0, second.data(), 2 * kBytes, nullptr));
    ASSERT_OK(cuabi_graph_capture_begin(capturing, CUABI_CAPTURE_MODE_THREAD_LOCAL));
    ASSERT_OK(cuabi_buffer_copy(a_dst, 0, a_src, 0, kBytes, capturing));
    cuabi_graph* graph = end_capture(capturing);
    ASSERT_NE(graph, nullptr);
    ASSERT_EQ(node(graph, 0).kind, CUABI_GRAPH_NODE_MEMCPY);
    replay(graph, capturing);
    EXPECT_EQ(read<uint8_t>(a_dst, kBytes), first);

    cuabi_graph_memcpy_params params = CUABI_GRAPH_MEMCPY_PARAMS_INIT;
    params.dst_buffer = b_dst;
    params.src_buffer = b_src;
    params.src_offset = kBytes;  // the second half of b_src
    params.size = kBytes;
    ASSERT_OK(cuabi_graph_update_memcpy(graph, 0, &params));
    poison(a_dst, kBytes);
    replay(graph, capturing);
    EXPECT_EQ(read<uint8_t>(b_dst, kBytes), std::vector<uint8_t>(second.begin() + kBytes, second.end()));
    EXPECT_EQ(read<uint8_t>(a_dst, kBytes), std::vector<uint8_t>(kBytes, 0xA5)) << "the old destination was written";

    // Out of bounds, the wrong kind of memory, and a node that is no memcpy are refused; the node
    // keeps what it had.
    params.src_offset = kBytes + 1;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memcpy(graph, 0, &params), CUABI_ERROR_OUT_OF_BOUNDS);
    std::vector<uint8_t> host(kBytes);
    params.src_offset = 0;
    params.dst_buffer = nullptr;
    params.dst_host = host.data();
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memcpy(graph, 0, &params), CUABI_ERROR_INVALID_ARGUMENT);
    params.dst_buffer = b_dst;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memcpy(graph, 0, &params), CUABI_ERROR_INVALID_ARGUMENT);
    cuabi_buffer* out = nullptr;
    cuabi_graph* kernels = two_kernels(&out);
    ASSERT_NE(kernels, nullptr);
    params.dst_host = nullptr;
    EXPECT_STATUS_WITH_FIX(cuabi_graph_update_memcpy(kernels, 0, &params), CUABI_ERROR_GRAPH_NODE);
    poison(b_dst, kBytes);
    replay(graph, capturing);
    EXPECT_EQ(read<uint8_t>(b_dst, kBytes), std::vector<uint8_t>(second.begin() + kBytes, second.end()));
}

TEST_F(GraphControlTest, DotDumpsNameTheKernelsInMemoryAndOnDisk) {
    cuabi_buffer* out = nullptr;
    cuabi_graph* graph = two_kernels(&out);
    ASSERT_NE(graph, nullptr);
    const std::string text = dot(graph, CUABI_GRAPH_DOT_DEFAULT);
    EXPECT_NE(text.find("digraph"), std::string::npos) << text;
    EXPECT_NE(text.find("write_index"), std::string::npos) << text;
    EXPECT_NE(text.find("add_in_place"), std::string::npos) << text;
    EXPECT_EQ(dot(graph, CUABI_GRAPH_DOT_DEFAULT), text) << "the two calls of the pattern see the same text";
    EXPECT_GT(dot(graph, CUABI_GRAPH_DOT_VERBOSE).size(), text.size());
    size_t size = 0;
    char small[8];
    EXPECT_STATUS_WITH_FIX(cuabi_graph_get_dot(graph, 0, small, sizeof small, &size), CUABI_ERROR_BUFFER_TOO_SMALL);
    EXPECT_EQ(size, text.size() + 1);

    char path[] = "/tmp/cuabi-dot-XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    close(fd);
    ASSERT_OK(cuabi_graph_write_dot(graph, path, CUABI_GRAPH_DOT_DEFAULT));
    std::ifstream file(path);
    std::stringstream written;
    written << file.rdbuf();
    EXPECT_NE(written.str().find("add_in_place"), std::string::npos) << written.str();
    std::remove(path);
    EXPECT_STATUS_WITH_FIX(cuabi_graph_write_dot(graph, "/nonexistent-dir/graph.dot", 0), CUABI_ERROR_CUDA);
}

}  // namespace
