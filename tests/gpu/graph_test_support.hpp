// Shared by the graph GPU suites: the kernels they capture, a fixture that owns the graphs it makes,
// and host-side helpers to read results back.
#pragma once

#include <cstring>
#include <string>
#include <vector>

#include "launch_test_support.hpp"

// Integer-valued floats keep every result exact, so results compare with ==.
inline const char* const kGraphKernels = R"(
extern "C" __global__ void scale_add(float* out, const float* in, float a, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a * in[i] + b;
}
extern "C" __global__ void add_in_place(float* data, float b, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] += b;
}
extern "C" __global__ void write_index(unsigned* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 3u * i + 1u;
}
extern "C" __global__ void empty() {}
)";

class GraphTest : public LaunchTest {
protected:
    void SetUp() override {
        LaunchTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        scale_add = kernel(kGraphKernels, "scale_add");
        add_in_place = kernel(kGraphKernels, "add_in_place");
        write_index = kernel(kGraphKernels, "write_index");
        ASSERT_NE(scale_add, nullptr);
        ASSERT_NE(add_in_place, nullptr);
        ASSERT_NE(write_index, nullptr);
        capturing = stream();
        ASSERT_NE(capturing, nullptr);
    }

    void TearDown() override {
        for (cuabi_graph* graph : graphs_) cuabi_graph_destroy(graph);
        LaunchTest::TearDown();
    }

    // Ends the capture on `on` and keeps the graph for clean-up; fails the test on error.
    cuabi_graph* end_capture(cuabi_stream* on) {
        cuabi_graph* graph = nullptr;
        cuabi_status status = cuabi_graph_capture_end(on, nullptr, &graph);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        if (graph != nullptr) graphs_.push_back(graph);
        return graph;
    }
    void keep(cuabi_graph* graph) { graphs_.push_back(graph); }

    // n random integer-valued floats in [0, 1000) from `seed`.
    static std::vector<float> random_floats(size_t n, uint32_t seed) {
        std::mt19937 generator(seed);
        std::vector<float> values(n);
        for (float& value : values) value = static_cast<float>(generator() % 1000u);
        return values;
    }

    template <typename T>
    std::vector<T> read(cuabi_buffer* buffer, size_t count) {
        std::vector<T> values(count);
        cuabi_status status = cuabi_buffer_read(buffer, 0, values.data(), count * sizeof(T), nullptr);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        return values;
    }

    template <typename T>
    void write(cuabi_buffer* buffer, const std::vector<T>& values) {
        cuabi_status status = cuabi_buffer_write(buffer, 0, values.data(), values.size() * sizeof(T), nullptr);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
    }

    void poison(cuabi_buffer* buffer, size_t bytes) {
        cuabi_status status = cuabi_buffer_fill(buffer, 0, 0xA5, 1, bytes, nullptr);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
    }

    void replay(cuabi_graph* graph, cuabi_stream* on) {
        ASSERT_OK(cuabi_graph_launch(graph, on));
        ASSERT_OK(cuabi_stream_synchronize(on));
    }

    static cuabi_graph_node_info node(cuabi_graph* graph, size_t index) {
        cuabi_graph_node_info info = CUABI_GRAPH_NODE_INFO_INIT;
        cuabi_status status = cuabi_graph_get_node_info(graph, index, &info);
        EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_failure_text(status);
        return info;
    }

    static std::string kernel_name(cuabi_graph* graph, size_t index) {
        size_t size = 0;
        EXPECT_OK(cuabi_graph_get_node_kernel_name(graph, index, nullptr, 0, &size));
        std::string name(size, '\0');
        EXPECT_OK(cuabi_graph_get_node_kernel_name(graph, index, &name[0], name.size(), &size));
        name.resize(size == 0 ? 0 : size - 1);
        return name;
    }

    static cuabi_counters counters_of(cuabi_context* of) {
        cuabi_counters counters = CUABI_COUNTERS_INIT;
        EXPECT_OK(cuabi_context_get_counters(of, &counters));
        return counters;
    }

    cuabi_kernel* scale_add = nullptr;
    cuabi_kernel* add_in_place = nullptr;
    cuabi_kernel* write_index = nullptr;
    cuabi_stream* capturing = nullptr;

private:
    std::vector<cuabi_graph*> graphs_;
};

// GraphTest with an input on the device: `in` holds `input`, kN random floats from `seed`,
// written before the test, for suites whose kernels compute from one input buffer, launched as
// kGrid blocks of kBlock threads, one element per thread.
class GraphInputTest : public GraphTest {
protected:
    static constexpr unsigned kN = 4096;
    static constexpr unsigned kBlock = 256;
    static constexpr unsigned kGrid = kN / kBlock;

    explicit GraphInputTest(uint32_t seed) : seed_(seed) {}

    void SetUp() override {
        GraphTest::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        in = buffer(kN * sizeof(float), &in_address);
        ASSERT_NE(in, nullptr);
        input = random_floats(kN, seed_);
        write(in, input);
    }

    cuabi_buffer* in = nullptr;
    uint64_t in_address = 0;
    std::vector<float> input;

private:
    uint32_t seed_;
};
