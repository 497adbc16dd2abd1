// Conditional graph nodes without a GPU: every argument check that needs no driver, the refusal
// of drivers too old for a node, and the device-side declaration kernels need under NVRTC (compiled
// for real, offline). What needs a capture is in tests/gpu/graph_conditional_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "graph/conditional.hpp"

namespace cuabi {
namespace {

template <HandleType Type>
struct Placeholder final : Object {
    static constexpr HandleType kHandleType = Type;
};

cuabi_stream* const kNoStream = nullptr;

// Handles that must never pin as a stream: NULL, made up, destroyed, and a live one of another type.
struct BadStreams {
    std::shared_ptr<Placeholder<HandleType::Graph>> graph = std::make_shared<Placeholder<HandleType::Graph>>();
    cuabi_stream* null = nullptr;
    cuabi_stream* forged = reinterpret_cast<cuabi_stream*>(uintptr_t{0x5eed0000d00dULL});
    cuabi_stream* destroyed = nullptr;
    cuabi_stream* wrong_type = nullptr;
    BadStreams() {
        EXPECT_EQ(publish(std::make_shared<Placeholder<HandleType::Stream>>(), &destroyed), CUABI_SUCCESS);
        destroy_handle<Placeholder<HandleType::Stream>>(destroyed);
        EXPECT_EQ(publish(graph, &wrong_type), CUABI_SUCCESS);
    }
    ~BadStreams() { destroy_handle<Placeholder<HandleType::Graph>>(wrong_type); }
};

TEST(GraphConditionalArguments, EveryCallRefusesAStreamThatIsNotALiveStream) {
    BadStreams bad;
    for (cuabi_stream* stream : {bad.null, bad.forged, bad.destroyed, bad.wrong_type}) {
        uint64_t condition = 0;
        EXPECT_FAILS_WITH(cuabi_graph_condition_create(stream, 1, CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT, &condition),
                          CUABI_ERROR_INVALID_HANDLE, "stream");
        EXPECT_FAILS_WITH(cuabi_graph_capture_conditional_begin(stream, 1, CUABI_GRAPH_CONDITIONAL_WHILE, 1),
                          CUABI_ERROR_INVALID_HANDLE, "stream");
        EXPECT_FAILS_WITH(cuabi_graph_capture_conditional_next(stream), CUABI_ERROR_INVALID_HANDLE, "stream");
        EXPECT_FAILS_WITH(cuabi_graph_capture_conditional_end(stream), CUABI_ERROR_INVALID_HANDLE, "stream");
    }
}

TEST(GraphConditionalArguments, ConditionCreateRefusesANullOutputAndUnknownFlags) {
    uint64_t condition = 7;
    EXPECT_FAILS_WITH(cuabi_graph_condition_create(kNoStream, 0, CUABI_GRAPH_CONDITION_DEFAULT, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_condition is NULL");
    EXPECT_FAILS_WITH(cuabi_graph_condition_create(kNoStream, 0, 0x2u, &condition), CUABI_ERROR_INVALID_ARGUMENT,
                      "flags is 0x2");
    EXPECT_FAILS_WITH(cuabi_graph_condition_create(kNoStream, 0, 0x80000001u, &condition), CUABI_ERROR_INVALID_ARGUMENT,
                      "bits 0x80000000");
    EXPECT_EQ(condition, 7u);  // untouched on failure
}

TEST(GraphConditionalArguments, BeginRefusesTypesThatAreNotConditionalTypes) {
    for (int32_t type : {0, 4, -1, INT32_MAX, INT32_MIN})
        EXPECT_FAILS_WITH(cuabi_graph_capture_conditional_begin(kNoStream, 1, type, 1), CUABI_ERROR_INVALID_ARGUMENT,
                          "conditional type " + std::to_string(type) + " is not");
}

TEST(GraphConditionalArguments, BeginRefusesBodyCountsTheTypeDoesNotAllow) {
    struct Case {
        int32_t type;
        uint32_t bodies;
        const char* named;
    };
    for (const Case& c : {Case{CUABI_GRAPH_CONDITIONAL_WHILE, 0, "a while node cannot have 0 bodies"},
                          Case{CUABI_GRAPH_CONDITIONAL_WHILE, 2, "a while node cannot have 2 bodies"},
                          Case{CUABI_GRAPH_CONDITIONAL_IF, 0, "an if node"},
                          Case{CUABI_GRAPH_CONDITIONAL_IF, 3, "cannot have 3 bodies"},
                          Case{CUABI_GRAPH_CONDITIONAL_SWITCH, 0, "a switch node cannot have 0 bodies"}})
        EXPECT_FAILS_WITH(cuabi_graph_capture_conditional_begin(kNoStream, 1, c.type, c.bodies),
                          CUABI_ERROR_INVALID_ARGUMENT, c.named);
}

TEST(GraphConditionalArguments, ShapesTheDriverRunsPassTheShapeCheck) {
    EXPECT_EQ(graph::check_conditional_shape(CUABI_GRAPH_CONDITIONAL_WHILE, 1), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_shape(CUABI_GRAPH_CONDITIONAL_IF, 1), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_shape(CUABI_GRAPH_CONDITIONAL_IF, 2), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_shape(CUABI_GRAPH_CONDITIONAL_SWITCH, 1), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_shape(CUABI_GRAPH_CONDITIONAL_SWITCH, 1000), CUABI_SUCCESS);
}

TEST(GraphConditionalArguments, DriversOlderThanCuda12_3AreRefusedNamingTheVersionNeeded) {
    EXPECT_FAILS_WITH(graph::check_conditional_driver(12020, true, CUABI_GRAPH_CONDITIONAL_WHILE, 1),
                      CUABI_ERROR_UNSUPPORTED, "need a CUDA 12.3 driver; the installed driver is CUDA 12.2");
    EXPECT_FAILS_WITH(graph::check_conditional_driver(12080, false, CUABI_GRAPH_CONDITIONAL_IF, 1),
                      CUABI_ERROR_UNSUPPORTED, "lacks cuGraphConditionalHandleCreate");
    EXPECT_EQ(graph::check_conditional_driver(12030, true, CUABI_GRAPH_CONDITIONAL_WHILE, 1), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_driver(12030, true, CUABI_GRAPH_CONDITIONAL_IF, 1), CUABI_SUCCESS);
}

TEST(GraphConditionalArguments, SwitchAndElseBodiesNeedCuda12_8) {
    EXPECT_FAILS_WITH(graph::check_conditional_driver(12060, true, CUABI_GRAPH_CONDITIONAL_SWITCH, 3),
                      CUABI_ERROR_UNSUPPORTED, "switch nodes need a CUDA 12.8 driver; the installed driver is CUDA 12.6");
    EXPECT_FAILS_WITH(graph::check_conditional_driver(12079, true, CUABI_GRAPH_CONDITIONAL_IF, 2),
                      CUABI_ERROR_UNSUPPORTED, "if nodes with an else body need a CUDA 12.8 driver");
    EXPECT_EQ(graph::check_conditional_driver(12080, true, CUABI_GRAPH_CONDITIONAL_SWITCH, 3), CUABI_SUCCESS);
    EXPECT_EQ(graph::check_conditional_driver(13000, true, CUABI_GRAPH_CONDITIONAL_IF, 2), CUABI_SUCCESS);
}

// What the header tells kernel authors: under NVRTC the device function is declared by the kernel.
cuabi_status compile_offline(const std::string& source) {
    cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
    options.target = "sm_90";
    cuabi_module* module = nullptr;
    cuabi_status status = cuabi_module_compile_offline(source.c_str(), &options, &module);
    cuabi_module_destroy(module);
    return status;
}

const char* const kCountDown =
    "extern \"C\" __global__ void count_down(unsigned int* counter, cudaGraphConditionalHandle condition) {\n"
    "    if (--*counter == 0) cudaGraphSetConditional(condition, 0);\n"
    "}\n";

TEST(GraphConditionalArguments, KernelsSetConditionsUnderNvrtcWithTheDeclarationTheHeaderGives) {
    const std::string declaration =
        "extern \"C\" __device__ __cudart_builtin__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, "
        "unsigned int value);\n";
    EXPECT_EQ(compile_offline(declaration + kCountDown), CUABI_SUCCESS) << cuabi_last_error_message();
    // Without it NVRTC does not know the function: the declaration is what makes the difference.
    EXPECT_FAILS_WITH(compile_offline(kCountDown), CUABI_ERROR_COMPILE, "cudaGraphSetConditional");
}

}  // namespace
}  // namespace cuabi
