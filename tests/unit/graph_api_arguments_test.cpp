// The graph entry points refuse bad arguments before any GPU work (NULL, made-up and wrong-type
// handles, NULL out-parameters, bad output structs, key bytes without a pointer); the parts that
// need no GPU (capacity classes, the cache's counters, node kinds, the message left when a failure
// ends a capture) work; and the graph structs keep their frozen layout.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <memory>
#include <string>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "graph/capture.hpp"
#include "graph/node_kind.hpp"

namespace cuabi {
namespace {

// Handle bits that look like a graph handle but name no live slot.
cuabi_graph* made_up_graph() { return reinterpret_cast<cuabi_graph*>(uint64_t{7} << 56 | uint64_t{1} << 32 | 4000000u); }

struct Placeholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Event;
};

TEST(GraphStructs, LayoutIsFrozen) {
    EXPECT_EQ(offsetof(cuabi_graph_options, flags), 4u);
    EXPECT_EQ(sizeof(cuabi_graph_options), 8u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, kind), 4u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, kernel), 8u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, grid), 16u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, block), 28u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, shared_memory_bytes), 40u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, param_count), 44u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, param_bytes), 48u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, memset_value), 56u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, memset_element_size), 60u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, conditional_type), 64u);  // 1.2 ends at 88; 1.0 and 1.1 at 64
    EXPECT_EQ(offsetof(cuabi_graph_node_info, conditional_body_count), 68u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, condition), 72u);
    EXPECT_EQ(offsetof(cuabi_graph_node_info, conditional_body_nodes), 80u);
    EXPECT_EQ(sizeof(cuabi_graph_node_info), 88u);
    EXPECT_EQ(offsetof(cuabi_graph_update_info, reinstantiated), 4u);
    EXPECT_EQ(offsetof(cuabi_graph_update_info, driver_result), 8u);
    EXPECT_EQ(offsetof(cuabi_graph_update_info, has_error_node), 12u);
    EXPECT_EQ(offsetof(cuabi_graph_update_info, error_node_index), 16u);
    EXPECT_EQ(offsetof(cuabi_graph_update_info, reason), 24u);
    EXPECT_EQ(sizeof(cuabi_graph_update_info), 536u);
    EXPECT_EQ(offsetof(cuabi_graph_cache_stats, entries), 8u);
    EXPECT_EQ(offsetof(cuabi_graph_cache_stats, evictions), 48u);
    EXPECT_EQ(sizeof(cuabi_graph_cache_stats), 56u);
}

TEST(GraphStructs, InitFunctionEqualsTheInitMacroAndAcceptsNull) {
    cuabi_graph_options options, macro = CUABI_GRAPH_OPTIONS_INIT;
    std::memset(&options, 0xFF, sizeof options);
    cuabi_graph_options_init(sizeof options, &options);
    EXPECT_EQ(std::memcmp(&options, &macro, sizeof options), 0);
    EXPECT_EQ(cuabi_graph_options_init(sizeof options, nullptr), CUABI_ERROR_INVALID_ARGUMENT);
}

TEST(GraphApi, NullHandlesAreRefusedByName) {
    EXPECT_FAILS_WITH(cuabi_graph_capture_begin(nullptr, CUABI_CAPTURE_MODE_GLOBAL), CUABI_ERROR_INVALID_HANDLE, "stream");
    cuabi_graph* graph = nullptr;
    EXPECT_FAILS_WITH(cuabi_graph_capture_end(nullptr, nullptr, &graph), CUABI_ERROR_INVALID_HANDLE, "stream");
    EXPECT_FAILS_WITH(cuabi_graph_capture_abort(nullptr), CUABI_ERROR_INVALID_HANDLE, "stream");
    EXPECT_FAILS_WITH(cuabi_graph_launch(nullptr, nullptr), CUABI_ERROR_INVALID_HANDLE, "graph");
    EXPECT_FAILS_WITH(cuabi_graph_upload(nullptr, nullptr), CUABI_ERROR_INVALID_HANDLE, "graph");
    EXPECT_FAILS_WITH(cuabi_graph_update_memset_value(nullptr, 0, 0), CUABI_ERROR_INVALID_HANDLE, "graph");
    EXPECT_FAILS_WITH(cuabi_graph_update_kernel_args(nullptr, 0, nullptr, 0), CUABI_ERROR_INVALID_HANDLE, "graph");
    EXPECT_FAILS_WITH(cuabi_graph_update_kernel_args_packed(nullptr, 0, nullptr, 0), CUABI_ERROR_INVALID_HANDLE,
                      "graph");
    EXPECT_EQ(graph, nullptr) << "out_graph is written only on success";
}

// A NULL stream means "run synchronously" to the functions that enqueue work, but a capture is the
// state of one real stream, so every capture function refuses NULL, as the header's Stream group
// says, and names the stream in a message that ends in its fix.
TEST(GraphApi, EveryCaptureFunctionRefusesANullStream) {
    auto expect_refused = [](cuabi_status status, const char* call) {
        const std::string message = cuabi_last_error_message();
        EXPECT_EQ(status, CUABI_ERROR_INVALID_HANDLE) << call << ": " << message;
        EXPECT_EQ(message.find("stream is NULL"), 0u) << call << ": " << message;
        const size_t fix = message.rfind("Fix: ");
        ASSERT_NE(fix, std::string::npos) << call << ": " << message;
        EXPECT_EQ(message.find("Fix: "), fix) << call << ": one fix, at the end: " << message;
        EXPECT_GT(message.size(), fix + 5) << call << ": the fix says something: " << message;
        EXPECT_EQ(message.find(". ", fix), std::string::npos) << call << ": nothing after the fix: " << message;
    };
    cuabi_graph* graph = nullptr;
    cuabi_graph_options options = CUABI_GRAPH_OPTIONS_INIT;
    cuabi_graph_update_info info = CUABI_GRAPH_UPDATE_INFO_INIT;
    int32_t capture_status = -7;
    expect_refused(cuabi_graph_capture_begin(nullptr, CUABI_CAPTURE_MODE_THREAD_LOCAL), "capture_begin");
    expect_refused(cuabi_graph_capture_end(nullptr, &options, &graph), "capture_end");
    expect_refused(cuabi_graph_capture_end_update(nullptr, made_up_graph(), CUABI_GRAPH_UPDATE_DEFAULT, &info),
                   "capture_end_update");
    expect_refused(cuabi_graph_capture_abort(nullptr), "capture_abort");
    expect_refused(cuabi_graph_capture_get_status(nullptr, &capture_status), "capture_get_status");
    EXPECT_EQ(graph, nullptr) << "out_graph is written only on success";
    EXPECT_EQ(capture_status, -7) << "out_status is written only on success";
    EXPECT_EQ(info.reinstantiated, 0u);
    EXPECT_EQ(info.reason[0], '\0') << "out_info is written only on success";
}

TEST(GraphApi, MadeUpAndWrongTypeHandlesAreRefused) {
    size_t count = 0;
    EXPECT_FAILS_WITH(cuabi_graph_get_node_count(made_up_graph(), &count), CUABI_ERROR_INVALID_HANDLE, "not a live");
    cuabi_event* event = nullptr;
    ASSERT_EQ(publish(std::make_shared<Placeholder>(), &event), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi_graph_get_node_count(reinterpret_cast<cuabi_graph*>(event), &count), CUABI_ERROR_INVALID_HANDLE,
                      "event handle where a graph handle");
    destroy_handle<Placeholder>(event);
}

TEST(GraphApi, NullOutputsAreRefusedBeforeTheHandle) {
    EXPECT_FAILS_WITH(cuabi_graph_get_node_count(made_up_graph(), nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_count");
    EXPECT_FAILS_WITH(cuabi_graph_get_node_info(made_up_graph(), 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "info");
    EXPECT_FAILS_WITH(cuabi_graph_get_node_kernel_name(made_up_graph(), 0, nullptr, 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_size");
    size_t offset = 0;
    EXPECT_FAILS_WITH(cuabi_graph_get_node_param_info(made_up_graph(), 0, 0, &offset, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_size");
    EXPECT_FAILS_WITH(cuabi_graph_get_native(made_up_graph(), nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_cu_graph_exec");
    const uint32_t dims[3] = {1, 1, 1};
    EXPECT_FAILS_WITH(cuabi_graph_update_kernel_geometry(made_up_graph(), 0, nullptr, dims, 0),
                      CUABI_ERROR_INVALID_ARGUMENT, "grid");
    uint32_t active = 7;
    EXPECT_FAILS_WITH(cuabi_graph_capture_get_status(nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_status");
    EXPECT_EQ(active, 7u);
}

TEST(GraphApi, NodeInfoWithoutAStructSizeIsRefused) {
    cuabi_graph_node_info info{};
    EXPECT_FAILS_WITH(cuabi_graph_get_node_info(made_up_graph(), 0, &info), CUABI_ERROR_STRUCT_SIZE, "struct_size is 0");
}

TEST(GraphApi, CapacityClassIsExported) {
    EXPECT_EQ(cuabi_graph_cache_get_capacity_class(0), 1u);
    EXPECT_EQ(cuabi_graph_cache_get_capacity_class(1000), 1024u);
    EXPECT_EQ(cuabi_graph_cache_get_capacity_class((uint64_t{1} << 63) + 1), UINT64_MAX);
    EXPECT_EQ(reinterpret_cast<void*>(cuabi_get_proc_address("cuabi_graph_cache_get_capacity_class")),
              reinterpret_cast<void*>(&cuabi_graph_cache_get_capacity_class));
}

TEST(GraphCacheApi, KeyBytesNeedAPointer) {
    cuabi_graph* graph = nullptr;
    EXPECT_FAILS_WITH(cuabi_graph_cache_lookup(nullptr, nullptr, 3, 1, &graph), CUABI_ERROR_INVALID_ARGUMENT,
                      "key_size is 3");
    EXPECT_FAILS_WITH(cuabi_graph_cache_insert(nullptr, nullptr, 3, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "key_size is 3");
    EXPECT_FAILS_WITH(cuabi_graph_cache_lookup(nullptr, "k", 1, 1, nullptr), CUABI_ERROR_INVALID_ARGUMENT, "out_graph");
    EXPECT_FAILS_WITH(cuabi_graph_cache_lookup(nullptr, "k", 1, 1, &graph), CUABI_ERROR_INVALID_HANDLE, "context");
}

TEST(GraphCacheApi, StatsNeedAStructSizeAndReportTheCapacity) {
    cuabi_graph_cache_stats stats{};
    EXPECT_FAILS_WITH(cuabi_graph_cache_get_stats(&stats), CUABI_ERROR_STRUCT_SIZE, "struct_size is 0");
    cuabi_graph_cache_set_capacity(17);
    cuabi_graph_cache_stats read = CUABI_GRAPH_CACHE_STATS_INIT;
    ASSERT_EQ(cuabi_graph_cache_get_stats(&read), CUABI_SUCCESS);
    EXPECT_EQ(read.capacity, 17u);
    EXPECT_EQ(read.struct_size, sizeof read);
    cuabi_graph_cache_set_capacity(256);
}

TEST(GraphCacheApi, ClearingEverythingNeedsNoContext) {
    EXPECT_EQ(cuabi_graph_cache_clear(nullptr), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi_graph_cache_clear(reinterpret_cast<cuabi_context*>(made_up_graph())),
                      CUABI_ERROR_INVALID_HANDLE, "context");
}

TEST(GraphNodeKinds, EveryDriverNodeTypeHasItsOwnKind) {
    const CUgraphNodeType types[] = {
        CU_GRAPH_NODE_TYPE_KERNEL,       CU_GRAPH_NODE_TYPE_MEMCPY,         CU_GRAPH_NODE_TYPE_MEMSET,
        CU_GRAPH_NODE_TYPE_HOST,         CU_GRAPH_NODE_TYPE_GRAPH,          CU_GRAPH_NODE_TYPE_EMPTY,
        CU_GRAPH_NODE_TYPE_WAIT_EVENT,   CU_GRAPH_NODE_TYPE_EVENT_RECORD,   CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL,
        CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT, CU_GRAPH_NODE_TYPE_MEM_ALLOC,    CU_GRAPH_NODE_TYPE_MEM_FREE,
        CU_GRAPH_NODE_TYPE_BATCH_MEM_OP, CU_GRAPH_NODE_TYPE_CONDITIONAL};
    const int32_t kinds[] = {
        CUABI_GRAPH_NODE_KERNEL,     CUABI_GRAPH_NODE_MEMCPY,       CUABI_GRAPH_NODE_MEMSET,
        CUABI_GRAPH_NODE_HOST,       CUABI_GRAPH_NODE_CHILD_GRAPH,  CUABI_GRAPH_NODE_EMPTY,
        CUABI_GRAPH_NODE_EVENT_WAIT, CUABI_GRAPH_NODE_EVENT_RECORD, CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL,
        CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT, CUABI_GRAPH_NODE_MEM_ALLOC, CUABI_GRAPH_NODE_MEM_FREE,
        CUABI_GRAPH_NODE_BATCH_MEM_OP, CUABI_GRAPH_NODE_CONDITIONAL};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; ++i) {
        EXPECT_EQ(graph::node_kind(types[i]), kinds[i]) << "CUgraphNodeType " << types[i];
        EXPECT_STRNE(graph::node_kind_name(kinds[i]), "unknown");
    }
}

TEST(GraphNodeKinds, NodeTypesNewerThanCuabiAreOther) {
    EXPECT_EQ(graph::node_kind(static_cast<CUgraphNodeType>(99)), CUABI_GRAPH_NODE_OTHER);
    EXPECT_STREQ(graph::node_kind_name(CUABI_GRAPH_NODE_OTHER), "unknown");
}

TEST(GraphCaptureMessages, AFailureThatEndsACaptureKeepsItsExplanationAndFix) {
    std::string message = graph::discarded_capture_message(
        "block (2048,1,1) has 2048 threads; kernel 'k' allows at most 1024. Fix: reduce the block size.",
        graph::CaptureFate::Ended);
    EXPECT_EQ(message.find("block (2048,1,1) has 2048 threads"), 0u) << message;
    EXPECT_NE(message.find("ended the capture and discarded it"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: reduce the block size, then capture again."), std::string::npos) << message;
    EXPECT_EQ(message.find("Fix: "), message.rfind("Fix: ")) << "one fix, at the end: " << message;
}

TEST(GraphCaptureMessages, ACaptureOfAnotherThreadIsSaidToContinue) {
    std::string message =
        graph::discarded_capture_message("bad value. Fix: pass a good one.", graph::CaptureFate::OtherThread);
    EXPECT_NE(message.find("still captures"), std::string::npos) << message;
    EXPECT_NE(message.find("cuabi_graph_capture_abort"), std::string::npos) << message;
}

TEST(GraphCaptureMessages, ACaptureOtherCodeBeganIsLeftToIt) {
    std::string message =
        graph::discarded_capture_message("bad value. Fix: pass a good one.", graph::CaptureFate::NotCuabis);
    EXPECT_EQ(message.find("bad value."), 0u) << message;
    EXPECT_NE(message.find("other code began"), std::string::npos) << message;
    EXPECT_NE(message.find("still captures"), std::string::npos) << message;
    EXPECT_EQ(message.find("ended the capture"), std::string::npos) << message;
    EXPECT_NE(message.find("Fix: pass a good one;"), std::string::npos) << message;
    EXPECT_EQ(message.find("Fix: "), message.rfind("Fix: ")) << "one fix, at the end: " << message;
}

TEST(GraphCaptureMessages, TheFailureHookLeavesCallsWithoutAStreamAlone) {
    cuabi::fail(CUABI_ERROR_INVALID_ARGUMENT, "do better", "original");
    EXPECT_EQ(graph::end_capture_after_failure(nullptr, CUABI_ERROR_INVALID_ARGUMENT), CUABI_ERROR_INVALID_ARGUMENT);
    EXPECT_STREQ(cuabi_last_error_message(), "original. Fix: do better");
}

}  // namespace
}  // namespace cuabi

namespace cuabi {
namespace {

TEST(GraphControlApi, MemcpyParamsAreCheckedBeforeTheGraph) {
    cuabi_graph_memcpy_params params = CUABI_GRAPH_MEMCPY_PARAMS_INIT;
    EXPECT_FAILS_WITH(cuabi_graph_update_memcpy(made_up_graph(), 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "params is NULL");
    EXPECT_FAILS_WITH(cuabi_graph_update_memcpy(made_up_graph(), 0, &params), CUABI_ERROR_INVALID_ARGUMENT, "size is 0");
    params.size = 64;
    params.reserved = 1;
    EXPECT_FAILS_WITH(cuabi_graph_update_memcpy(made_up_graph(), 0, &params), CUABI_ERROR_INVALID_ARGUMENT,
                      "reserved is 1");
    params.reserved = 0;
    EXPECT_FAILS_WITH(cuabi_graph_update_memcpy(made_up_graph(), 0, &params), CUABI_ERROR_INVALID_HANDLE, "");
    params.struct_size = 0xFFFFFFFFu;
    EXPECT_FAILS_WITH(cuabi_graph_update_memcpy(made_up_graph(), 0, &params), CUABI_ERROR_STRUCT_SIZE, "struct_size");
    cuabi_graph_memcpy_params initialized;
    std::memset(&initialized, 0xFF, sizeof initialized);
    ASSERT_EQ(cuabi_graph_memcpy_params_init(sizeof initialized, &initialized), CUABI_SUCCESS);
    cuabi_graph_memcpy_params macro = CUABI_GRAPH_MEMCPY_PARAMS_INIT;
    EXPECT_EQ(std::memcmp(&initialized, &macro, sizeof macro), 0);
}

TEST(GraphControlApi, NodeSwitchesAndDotDumpsCheckTheirArguments) {
    uint32_t enabled = 7;
    EXPECT_FAILS_WITH(cuabi_graph_set_node_enabled(made_up_graph(), 0, 2), CUABI_ERROR_INVALID_ARGUMENT, "enabled is 2");
    EXPECT_FAILS_WITH(cuabi_graph_set_node_enabled(made_up_graph(), 0, 1), CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_graph_get_node_enabled(made_up_graph(), 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_enabled is NULL");
    EXPECT_FAILS_WITH(cuabi_graph_get_node_enabled(made_up_graph(), 0, &enabled), CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_EQ(enabled, 7u);
    EXPECT_FAILS_WITH(cuabi_graph_write_dot(made_up_graph(), nullptr, 0), CUABI_ERROR_INVALID_ARGUMENT, "path is NULL");
    EXPECT_FAILS_WITH(cuabi_graph_write_dot(made_up_graph(), "", 0), CUABI_ERROR_INVALID_ARGUMENT, "empty");
    EXPECT_FAILS_WITH(cuabi_graph_write_dot(made_up_graph(), "/tmp/g.dot", 0x2), CUABI_ERROR_INVALID_ARGUMENT, "0x2");
    EXPECT_FAILS_WITH(cuabi_graph_write_dot(made_up_graph(), "/tmp/g.dot", CUABI_GRAPH_DOT_VERBOSE),
                      CUABI_ERROR_INVALID_HANDLE, "");
    size_t size = 0;
    EXPECT_FAILS_WITH(cuabi_graph_get_dot(made_up_graph(), 0, nullptr, 0, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_size is NULL");
    EXPECT_FAILS_WITH(cuabi_graph_get_dot(made_up_graph(), 0x80, nullptr, 0, &size), CUABI_ERROR_INVALID_ARGUMENT, "0x80");
    EXPECT_FAILS_WITH(cuabi_graph_get_dot(made_up_graph(), 0, nullptr, 0, &size), CUABI_ERROR_INVALID_HANDLE, "");
}

}  // namespace
}  // namespace cuabi
