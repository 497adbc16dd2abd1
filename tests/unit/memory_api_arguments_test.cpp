// Bad arguments to the stream-ordered and managed memory entry points are refused with the right
// status and a message naming the value and the fix -- before the GPU is reached, so these hold on
// any machine. (Allocation, replay, pools and migration are in tests/gpu/stream_ordered_memory_test
// and tests/gpu/managed_memory_test.)
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"
#include "expect_status.hpp"
#include "graph/memory_nodes.hpp"

namespace cuabi {
namespace {

struct ContextPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Context;
};
struct BufferPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::Buffer;
};
struct PoolPlaceholder final : Object {
    static constexpr HandleType kHandleType = HandleType::MemoryPool;
};

cuabi_context* const kNoContext = nullptr;
cuabi_buffer* const kNoBuffer = nullptr;
cuabi_memory_pool* const kNoPool = nullptr;
// Well-formed bits of a memory pool handle that was never handed out.
cuabi_memory_pool* const kForgedPool = reinterpret_cast<cuabi_memory_pool*>(uint64_t{10} << 56 | uint64_t{1} << 32 | 4000000u);

TEST(MemoryApiArguments, NullOutParametersAreRefused) {
    EXPECT_FAILS_WITH(cuabi_memory_pool_options_init(sizeof(cuabi_memory_pool_options), nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "");
    EXPECT_FAILS_WITH(cuabi_memory_pool_create(kNoContext, nullptr, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_pool is NULL");
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_default(kNoContext, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_pool is NULL");
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_attribute(kNoPool, CUABI_MEMORY_POOL_USED_CURRENT, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_value is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_create_async(kNoContext, 64, kNoPool, nullptr, nullptr, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_create_managed(kNoContext, 64, CUABI_MANAGED_DEFAULT, nullptr),
                      CUABI_ERROR_INVALID_ARGUMENT, "out_buffer is NULL");
    EXPECT_FAILS_WITH(cuabi_buffer_get_host_pointer(kNoBuffer, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "out_pointer is NULL");
}

TEST(MemoryApiArguments, PoolOptionsInitFillsDefaultsForTheCallersSize) {
    cuabi_memory_pool_options options;
    options.max_size = 77;
    options.release_threshold = 99;
    ASSERT_EQ(cuabi_memory_pool_options_init(sizeof options, &options), CUABI_SUCCESS);
    EXPECT_EQ(options.struct_size, sizeof options);
    EXPECT_EQ(options.reserved, 0u);
    EXPECT_EQ(options.max_size, 0u);
    EXPECT_EQ(options.release_threshold, 0u);
    EXPECT_FAILS_WITH(cuabi_memory_pool_options_init(3, &options), CUABI_ERROR_STRUCT_SIZE, "struct_size 3");
}

TEST(MemoryApiArguments, ZeroSizesAreRefused) {
    cuabi_buffer* buffer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_create_async(kNoContext, 0, kNoPool, nullptr, nullptr, &buffer),
                      CUABI_ERROR_INVALID_ARGUMENT, "stream-ordered buffer size is 0");
    EXPECT_FAILS_WITH(cuabi_buffer_create_managed(kNoContext, 0, CUABI_MANAGED_DEFAULT, &buffer),
                      CUABI_ERROR_INVALID_ARGUMENT, "managed buffer size is 0");
    EXPECT_EQ(buffer, nullptr);
}

TEST(MemoryApiArguments, UnknownFlagsAndReservedBitsAreRefused) {
    cuabi_buffer* buffer = nullptr;
    cuabi_buffer_options options = CUABI_BUFFER_OPTIONS_INIT;
    options.flags = 0x40;
    EXPECT_FAILS_WITH(cuabi_buffer_create_async(kNoContext, 64, kNoPool, &options, nullptr, &buffer),
                      CUABI_ERROR_INVALID_ARGUMENT, "cuabi_buffer_options.flags is 0x40");
    // The attach flags of the driver (CU_MEM_ATTACH_SINGLE = 4) are not cuabi's.
    EXPECT_FAILS_WITH(cuabi_buffer_create_managed(kNoContext, 64, 0x4, &buffer), CUABI_ERROR_INVALID_ARGUMENT,
                      "flags is 0x4");
    cuabi_memory_pool* pool = nullptr;
    cuabi_memory_pool_options pool_options = CUABI_MEMORY_POOL_OPTIONS_INIT;
    pool_options.reserved = 1;
    EXPECT_FAILS_WITH(cuabi_memory_pool_create(kNoContext, &pool_options, &pool), CUABI_ERROR_INVALID_ARGUMENT,
                      "reserved is 0x1");
    cuabi_memory_pool_options garbage;
    garbage.struct_size = 0xFFFFFFFFu;
    EXPECT_FAILS_WITH(cuabi_memory_pool_create(kNoContext, &garbage, &pool), CUABI_ERROR_STRUCT_SIZE, "struct_size");
    EXPECT_EQ(buffer, nullptr);
    EXPECT_EQ(pool, nullptr);
}

TEST(MemoryApiArguments, UnknownAttributesAdviceAndLocationsAreRefused) {
    uint64_t value = 5;
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_attribute(kForgedPool, 0, &value), CUABI_ERROR_INVALID_ARGUMENT,
                      "attribute 0");
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_attribute(kForgedPool, CUABI_MEMORY_POOL_USED_HIGH + 1, &value),
                      CUABI_ERROR_INVALID_ARGUMENT, "attribute 6");
    EXPECT_EQ(value, 5u);
    EXPECT_FAILS_WITH(cuabi_buffer_advise(kNoBuffer, 0, 64, 0, 0), CUABI_ERROR_INVALID_ARGUMENT, "advice 0");
    EXPECT_FAILS_WITH(cuabi_buffer_advise(kNoBuffer, 0, 64, 7, 0), CUABI_ERROR_INVALID_ARGUMENT, "advice 7");
    EXPECT_FAILS_WITH(cuabi_buffer_advise(kNoBuffer, 0, 64, CUABI_ADVICE_SET_PREFERRED_LOCATION, -2),
                      CUABI_ERROR_INVALID_ARGUMENT, "location -2");
    EXPECT_FAILS_WITH(cuabi_buffer_prefetch(kNoBuffer, 0, 64, INT32_MIN, nullptr), CUABI_ERROR_INVALID_ARGUMENT,
                      "location -2147483648");
}

TEST(MemoryApiArguments, NullForgedStaleAndWrongTypeHandlesAreRefused) {
    cuabi_buffer* buffer = nullptr;
    cuabi_memory_pool* pool = nullptr;
    EXPECT_FAILS_WITH(cuabi_memory_pool_create(kNoContext, nullptr, &pool), CUABI_ERROR_INVALID_HANDLE, "context");
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_default(kNoContext, &pool), CUABI_ERROR_INVALID_HANDLE, "context");
    EXPECT_FAILS_WITH(cuabi_memory_pool_set_release_threshold(kForgedPool, 1 << 20), CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_memory_pool_trim(kNoPool, 0), CUABI_ERROR_INVALID_HANDLE, "");
    uint64_t value = 0;
    EXPECT_FAILS_WITH(cuabi_memory_pool_get_attribute(kForgedPool, CUABI_MEMORY_POOL_RESERVED_CURRENT, &value),
                      CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_buffer_free_async(kNoBuffer, nullptr), CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_buffer_prefetch(kNoBuffer, 0, 64, CUABI_LOCATION_HOST, nullptr),
                      CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_buffer_advise(kNoBuffer, 0, 64, CUABI_ADVICE_SET_READ_MOSTLY, 0),
                      CUABI_ERROR_INVALID_HANDLE, "");
    void* pointer = nullptr;
    EXPECT_FAILS_WITH(cuabi_buffer_get_host_pointer(kNoBuffer, &pointer), CUABI_ERROR_INVALID_HANDLE, "");

    // A buffer handle where a pool is required, and the reverse.
    cuabi_buffer* placeholder_buffer = nullptr;
    ASSERT_EQ(publish(std::make_shared<BufferPlaceholder>(), &placeholder_buffer), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi_memory_pool_trim(reinterpret_cast<cuabi_memory_pool*>(placeholder_buffer), 0),
                      CUABI_ERROR_INVALID_HANDLE, "buffer handle where a memory pool handle is required");
    cuabi_memory_pool* placeholder_pool = nullptr;
    ASSERT_EQ(publish(std::make_shared<PoolPlaceholder>(), &placeholder_pool), CUABI_SUCCESS);
    EXPECT_FAILS_WITH(cuabi_buffer_free_async(reinterpret_cast<cuabi_buffer*>(placeholder_pool), nullptr),
                      CUABI_ERROR_INVALID_HANDLE, "memory pool handle where a buffer handle is required");
    EXPECT_FAILS_WITH(cuabi_buffer_create_async(reinterpret_cast<cuabi_context*>(placeholder_pool), 64, kNoPool,
                                                nullptr, nullptr, &buffer),
                      CUABI_ERROR_INVALID_HANDLE, "memory pool handle where a context handle is required");
    // A pool handle that was destroyed is refused, and destroying it again (or NULL) is harmless.
    cuabi_memory_pool_destroy(placeholder_pool);
    EXPECT_FAILS_WITH(cuabi_memory_pool_trim(placeholder_pool, 0), CUABI_ERROR_INVALID_HANDLE, "");
    cuabi_memory_pool_destroy(placeholder_pool);
    cuabi_memory_pool_destroy(kNoPool);
    destroy_handle<BufferPlaceholder>(placeholder_buffer);

    cuabi_context* stale = nullptr;
    ASSERT_EQ(publish(std::make_shared<ContextPlaceholder>(), &stale), CUABI_SUCCESS);
    destroy_handle<ContextPlaceholder>(stale);
    EXPECT_FAILS_WITH(cuabi_buffer_create_managed(stale, 64, CUABI_MANAGED_ATTACH_HOST, &buffer),
                      CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_FAILS_WITH(cuabi_buffer_create_async(stale, 64, kNoPool, nullptr, nullptr, &buffer),
                      CUABI_ERROR_INVALID_HANDLE, "");
    EXPECT_EQ(buffer, nullptr);
    EXPECT_EQ(pool, nullptr);
}

// The replay refusal of a graph that allocates and did not free: told apart from other failures.
std::vector<graph::Node> nodes_of_kinds(std::initializer_list<int32_t> kinds) {
    std::vector<graph::Node> nodes(kinds.size());
    size_t i = 0;
    for (int32_t kind : kinds) nodes[i++].kind = kind;
    return nodes;
}

TEST(GraphMemoryRefusal, AnUnfreedAllocationIsReportedAsGraphMemory) {
    std::vector<graph::Node> nodes =
        nodes_of_kinds({CUABI_GRAPH_NODE_MEM_ALLOC, CUABI_GRAPH_NODE_KERNEL, CUABI_GRAPH_NODE_MEM_ALLOC});
    EXPECT_FAILS_WITH(graph::unfreed_allocation_refusal(CUDA_ERROR_INVALID_VALUE, nodes, CUABI_GRAPH_DEFAULT, 3),
                      CUABI_ERROR_GRAPH_MEMORY, "2 memory allocation node(s) on device 3");
    EXPECT_EQ(cuabi_last_cu_result(), CUDA_ERROR_INVALID_VALUE);
}

TEST(GraphMemoryRefusal, OtherFailuresAreLeftToTheLaunchReport) {
    std::vector<graph::Node> allocating = nodes_of_kinds({CUABI_GRAPH_NODE_MEM_ALLOC, CUABI_GRAPH_NODE_KERNEL});
    std::vector<graph::Node> plain = nodes_of_kinds({CUABI_GRAPH_NODE_KERNEL, CUABI_GRAPH_NODE_MEM_FREE});
    EXPECT_EQ(graph::unfreed_allocation_refusal(CUDA_ERROR_LAUNCH_FAILED, allocating, CUABI_GRAPH_DEFAULT, 0),
              CUABI_SUCCESS);
    EXPECT_EQ(graph::unfreed_allocation_refusal(CUDA_ERROR_INVALID_VALUE, plain, CUABI_GRAPH_DEFAULT, 0),
              CUABI_SUCCESS);
    // An executable that frees at each relaunch is never refused for it.
    EXPECT_EQ(graph::unfreed_allocation_refusal(CUDA_ERROR_INVALID_VALUE, allocating, CUABI_GRAPH_AUTO_FREE_ON_LAUNCH,
                                                0),
              CUABI_SUCCESS);
}

}  // namespace
}  // namespace cuabi
