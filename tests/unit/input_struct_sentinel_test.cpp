// Every field of every versioned input struct other than cuabi_compile_options (which
// options_sentinel_test.cpp covers) is read by the call that takes it: each field has a sentinel
// value set through the public API whose effect the test observes. Fields come from
// api/abi_structs.inc (the ABI model), so a new field fails here until the table says how it is
// observed. Without a GPU, what is observable is a refusal that names the sentinel; the launch
// geometry is observed on a GPU by a kernel that reports the shape it ran with.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "cuabi/cuabi.h"
#include "expect_status.hpp"

namespace {

cuabi_graph* made_up_graph() {
    return reinterpret_cast<cuabi_graph*>(uint64_t{7} << 56 | uint64_t{1} << 32 | 4000000u);
}

struct Observation {
    std::function<void()> without_gpu;  // a refusal naming the sentinel
    const char* with_gpu;               // the GPU test below that observes it, or nullptr
};

// A sentinel set on the struct's defaults, which `call` must refuse with `expected` naming it.
template <typename T, typename Set, typename Call>
std::function<void()> refusal(cuabi_status (*init)(uint32_t, T*), Set set, Call call, cuabi_status expected,
                              const char* fragment) {
    return [=] {
        T value;
        init(sizeof value, &value);
        set(&value);
        EXPECT_FAILS_WITH(call(&value), expected, fragment);
    };
}

cuabi_status create_context(const cuabi_context_options* o) {
    cuabi_context* out = nullptr;
    cuabi_status status = cuabi_context_create(o, &out);
    cuabi_context_destroy(out);
    return status;
}
cuabi_status create_stream(const cuabi_stream_options* o) {
    cuabi_stream* out = nullptr;
    return cuabi_stream_create(nullptr, o, &out);
}
cuabi_status create_event(const cuabi_event_options* o) {
    cuabi_event* out = nullptr;
    return cuabi_event_create(nullptr, o, &out);
}
cuabi_status create_buffer(const cuabi_buffer_options* o) {
    cuabi_buffer* out = nullptr;
    return cuabi_buffer_create(nullptr, 16, o, &out);
}
cuabi_status launch_nothing(const cuabi_launch_config* o) { return cuabi_launch(nullptr, o, nullptr, 0); }
cuabi_status update_made_up_memcpy(const cuabi_graph_memcpy_params* o) {
    return cuabi_graph_update_memcpy(made_up_graph(), 0, o);
}
cuabi_status register_host(const cuabi_host_memory_options* o) {
    static char host[64];
    cuabi_host_memory* out = nullptr;
    return cuabi_host_memory_register(nullptr, host, sizeof host, o, &out);
}
cuabi_status create_pool(const cuabi_memory_pool_options* o) {
    cuabi_memory_pool* out = nullptr;
    return cuabi_memory_pool_create(nullptr, o, &out);
}

// A valid rank-2 tensor map description with `change` applied, which the encode must refuse (the
// rules come before the buffer handle, so a made-up one does).
template <typename Change>
std::function<void()> tensor_map_refusal(Change change, cuabi_status expected, const char* fragment) {
    auto valid_then_change = [change](cuabi_tensor_map_params* o) {
        o->rank = 2;
        o->global_dims[0] = 64;
        o->global_dims[1] = 32;
        o->global_strides[0] = 256;
        o->box_dims[0] = 32;
        o->box_dims[1] = 8;
        change(o);
    };
    auto encode = [](const cuabi_tensor_map_params* o) {
        cuabi_tensor_map map;
        return cuabi_tensor_map_encode_tiled(reinterpret_cast<cuabi_buffer*>(uint64_t{4} << 56 | 4000003u), o, &map);
    };
    return refusal(cuabi_tensor_map_params_init, valid_then_change, encode, expected, fragment);
}

// An offline link of one input that passes the input checks (an LTO-IR header) but that nvJitLink
// never gets to read: the options are refused first (or the deadline passes).
cuabi_status link_header_only(const cuabi_link_options* o) {
    static const uint8_t header[16] = {0xed, 0x43, 0x4e, 0x7f, 1};
    cuabi_link_input input = {};
    input.kind = CUABI_LINK_INPUT_LTOIR;
    input.data = header;
    input.size = sizeof header;
    cuabi_module* out = nullptr;
    cuabi_status status = cuabi_module_link_offline(&input, 1, o, &out);
    cuabi_module_destroy(out);
    return status;
}
cuabi_status link_nothing(const cuabi_link_options* o) {
    cuabi_module* out = nullptr;
    return cuabi_module_link_offline(nullptr, 0, o, &out);
}
// Link options that reach nvJitLinkCreate, with `extra` as the one extra option.
void link_sentinel_base(cuabi_link_options* o, const char* const* extra) {
    o->target = "sm_90";
    o->flags = CUABI_LINK_LTO | CUABI_LINK_NO_CACHE;
    o->extra_options = extra;
    o->extra_option_count = 1;
}
const char* const kBogusLinkOption[] = {"-bogus-sentinel-option"};

const std::map<std::string, Observation>& observations() {
    static const std::map<std::string, Observation> table = {
        {"cuabi_context_options.struct_size", {nullptr, "struct_size_test.cpp: every size of every struct"}},
        {"cuabi_context_options.flags",
         {refusal(cuabi_context_options_init, [](auto* o) { o->flags = 0x80; },
                  create_context, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_context_options.flags is 0x80"),
          nullptr}},
        {"cuabi_context_options.device_ordinal",
         {refusal(cuabi_context_options_init, [](auto* o) { o->device_ordinal = -5; },
                  create_context, CUABI_ERROR_INVALID_DEVICE, "device ordinal -5"),
          nullptr}},
        {"cuabi_context_options.reserved",
         {refusal(cuabi_context_options_init, [](auto* o) { o->reserved = 3; },
                  create_context, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_context_options.reserved is 3"),
          nullptr}},
        {"cuabi_context_options.image_verification",
         {refusal(cuabi_context_options_init, [](auto* o) { o->image_verification = 77; },
                  create_context, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_context_options.image_verification is 77"),
          nullptr}},
        {"cuabi_stream_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_stream_options.flags",
         {refusal(cuabi_stream_options_init, [](auto* o) { o->flags = 0x40; },
                  create_stream, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_stream_options.flags is 0x40"),
          nullptr}},
        {"cuabi_stream_options.priority", {nullptr, "not observed yet: needs the stream's priority from the driver"}},
        {"cuabi_stream_options.reserved",
         {refusal(cuabi_stream_options_init, [](auto* o) { o->reserved = 3; },
                  create_stream, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_stream_options.reserved is 3"),
          nullptr}},
        {"cuabi_event_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_event_options.flags",
         {refusal(cuabi_event_options_init, [](auto* o) { o->flags = 0x80; },
                  create_event, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_event_options.flags is 0x80"),
          nullptr}},
        {"cuabi_buffer_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_buffer_options.flags",
         {refusal(cuabi_buffer_options_init, [](auto* o) { o->flags = 0x100; },
                  create_buffer, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_buffer_options.flags is 0x100"),
          nullptr}},
        {"cuabi_host_memory_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_host_memory_options.flags",
         {refusal(cuabi_host_memory_options_init, [](auto* o) { o->flags = CUABI_HOST_MEMORY_WRITE_COMBINED; },
                  register_host, CUABI_ERROR_INVALID_ARGUMENT, "asks for write-combined memory"),
          nullptr}},
        {"cuabi_memory_pool_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_memory_pool_options.reserved",
         {refusal(cuabi_memory_pool_options_init, [](auto* o) { o->reserved = 0x5a; }, create_pool,
                  CUABI_ERROR_INVALID_ARGUMENT, "reserved is 0x5a"),
          nullptr}},
        {"cuabi_memory_pool_options.max_size", {nullptr, "StreamOrderedMemory.PoolMaxSizeBoundsAllocations"}},
        {"cuabi_memory_pool_options.release_threshold",
         {nullptr, "StreamOrderedMemory.PoolReleaseThresholdAndTrimShowInItsAttributes"}},
        {"cuabi_launch_config.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_launch_config.flags",
         {refusal(cuabi_launch_config_init, [](auto* o) { o->flags = 0x8000; },
                  launch_nothing, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_launch_config.flags is 0x8000"),
          nullptr}},
        {"cuabi_launch_config.grid", {nullptr, "LaunchGeometryReachesTheKernel"}},
        {"cuabi_launch_config.block", {nullptr, "LaunchGeometryReachesTheKernel"}},
        {"cuabi_launch_config.cluster", {nullptr, "not observed yet: needs an sm_90 cluster probe"}},
        {"cuabi_launch_config.shared_memory_bytes", {nullptr, "LaunchGeometryReachesTheKernel"}},
        {"cuabi_launch_config.stream", {nullptr, "LaunchGeometryReachesTheKernel (runs on the config's stream)"}},
        {"cuabi_launch_config.priority", {nullptr, "not observed yet: needs the launch's priority from the driver"}},
        {"cuabi_launch_config.reserved",
         {refusal(cuabi_launch_config_init, [](auto* o) { o->reserved = 3; },
                  launch_nothing, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_launch_config.reserved is 3"),
          nullptr}},
        {"cuabi_graph_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_graph_options.flags", {nullptr, "not observed yet: needs a captured graph"}},
        {"cuabi_graph_memcpy_params.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_tensor_map_params.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_tensor_map_params.data_type",
         {tensor_map_refusal([](auto* o) { o->data_type = 41; }, CUABI_ERROR_INVALID_ARGUMENT, "data_type is 41"),
          nullptr}},
        {"cuabi_tensor_map_params.rank",
         {tensor_map_refusal([](auto* o) { o->rank = 7; }, CUABI_ERROR_INVALID_ARGUMENT, "rank is 7"), nullptr}},
        {"cuabi_tensor_map_params.interleave",
         {tensor_map_refusal([](auto* o) { o->interleave = 9; }, CUABI_ERROR_INVALID_ARGUMENT, "interleave is 9"),
          nullptr}},
        {"cuabi_tensor_map_params.swizzle",
         {tensor_map_refusal([](auto* o) { o->swizzle = 8; }, CUABI_ERROR_INVALID_ARGUMENT, "swizzle is 8"),
          nullptr}},
        {"cuabi_tensor_map_params.l2_promotion",
         {tensor_map_refusal([](auto* o) { o->l2_promotion = 5; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "l2_promotion is 5"),
          nullptr}},
        {"cuabi_tensor_map_params.oob_fill",
         {tensor_map_refusal([](auto* o) { o->oob_fill = 6; }, CUABI_ERROR_INVALID_ARGUMENT, "oob_fill is 6"),
          nullptr}},
        {"cuabi_tensor_map_params.reserved",
         {tensor_map_refusal([](auto* o) { o->reserved = 3; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "cuabi_tensor_map_params.reserved is 3"),
          nullptr}},
        {"cuabi_tensor_map_params.offset",
         {nullptr, "gpu/tensor_map_test.cpp: AMisalignedTensorAddressIsRefused (offset 8)"}},
        {"cuabi_tensor_map_params.global_dims",
         {tensor_map_refusal([](auto* o) { o->global_dims[1] = 0; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "global_dims[1] is 0"),
          nullptr}},
        {"cuabi_tensor_map_params.global_strides",
         {tensor_map_refusal([](auto* o) { o->global_strides[0] = 250; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "global_strides[0] (the byte stride of dimension 1) is 250"),
          nullptr}},
        {"cuabi_tensor_map_params.box_dims",
         {tensor_map_refusal([](auto* o) { o->box_dims[1] = 300; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "box_dims[1] is 300"),
          nullptr}},
        {"cuabi_tensor_map_params.element_strides",
         {tensor_map_refusal([](auto* o) { o->element_strides[1] = 12; }, CUABI_ERROR_INVALID_ARGUMENT,
                             "element_strides[1] is 12"),
          nullptr}},
        {"cuabi_graph_memcpy_params.reserved",
         {refusal(cuabi_graph_memcpy_params_init, [](auto* o) { o->reserved = 3; o->size = 8; },
                  update_made_up_memcpy, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_graph_memcpy_params.reserved is 3"),
          nullptr}},
        {"cuabi_graph_memcpy_params.size",
         {refusal(cuabi_graph_memcpy_params_init, [](auto* o) { o->size = 0; },
                  update_made_up_memcpy, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_graph_memcpy_params.size is 0"),
          nullptr}},
        {"cuabi_graph_memcpy_params.dst_buffer",
         {nullptr, "gpu/graph_control_test.cpp: AMemcpyNodeUpdateChangesWhatReplaysCopy"}},
        {"cuabi_graph_memcpy_params.dst_host", {nullptr, "not observed yet: needs a captured memcpy node"}},
        {"cuabi_graph_memcpy_params.dst_offset", {nullptr, "not observed yet: needs a captured memcpy node"}},
        {"cuabi_graph_memcpy_params.src_buffer",
         {nullptr, "gpu/graph_control_test.cpp: AMemcpyNodeUpdateChangesWhatReplaysCopy"}},
        {"cuabi_graph_memcpy_params.src_host", {nullptr, "not observed yet: needs a captured memcpy node"}},
        {"cuabi_link_options.struct_size", {nullptr, "struct_size_test.cpp"}},
        {"cuabi_link_options.flags",
         {refusal(cuabi_link_options_init, [](auto* o) { o->flags = 0x100; o->target = "sm_90"; },
                  link_nothing, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_link_options.flags is 0x100"),
          nullptr}},
        {"cuabi_link_options.target",
         {refusal(cuabi_link_options_init, [](auto* o) { o->target = "compute_87"; },
                  link_nothing, CUABI_ERROR_INVALID_ARGUMENT, "\"compute_87\""),
          nullptr}},
        {"cuabi_link_options.optimization_level",
         {refusal(cuabi_link_options_init, [](auto* o) { o->optimization_level = 9; o->target = "sm_90"; },
                  link_nothing, CUABI_ERROR_INVALID_ARGUMENT, "optimization_level is 9"),
          nullptr}},
        {"cuabi_link_options.max_registers",
         {refusal(cuabi_link_options_init,
                  [](auto* o) { link_sentinel_base(o, kBogusLinkOption); o->max_registers = 77; },
                  link_header_only, CUABI_ERROR_LINK, "-maxrregcount=77"),
          nullptr}},
        {"cuabi_link_options.extra_options",
         {refusal(cuabi_link_options_init, [](auto* o) { link_sentinel_base(o, kBogusLinkOption); },
                  link_header_only, CUABI_ERROR_LINK, "-bogus-sentinel-option"),
          nullptr}},
        {"cuabi_link_options.extra_option_count",
         {refusal(cuabi_link_options_init, [](auto* o) { o->target = "sm_90"; o->extra_option_count = 2; },
                  link_nothing, CUABI_ERROR_INVALID_ARGUMENT, "extra_options is NULL but its count is 2"),
          nullptr}},
        {"cuabi_link_options.timeout_ms",
         {refusal(cuabi_link_options_init,
                  [](auto* o) { link_sentinel_base(o, kBogusLinkOption); o->timeout_ms = 1; },
                  link_header_only, CUABI_ERROR_TIMEOUT, "1 ms, cuabi_link_options.timeout_ms"),
          nullptr}},
        {"cuabi_link_options.reserved",
         {refusal(cuabi_link_options_init, [](auto* o) { o->reserved = 3; },
                  link_nothing, CUABI_ERROR_INVALID_ARGUMENT, "cuabi_link_options.reserved is 3"),
          nullptr}},
        {"cuabi_graph_memcpy_params.src_offset",
         {nullptr, "gpu/graph_control_test.cpp: AMemcpyNodeUpdateChangesWhatReplaysCopy"}},
    };
    return table;
}

// The input structs of the model: options, configs and parameters the caller fills.
const std::set<std::string> kInputStructs = {"cuabi_context_options", "cuabi_stream_options", "cuabi_event_options",
                                             "cuabi_buffer_options",  "cuabi_host_memory_options",
                                             "cuabi_memory_pool_options",
                                             "cuabi_launch_config",   "cuabi_graph_options",
                                             "cuabi_graph_memcpy_params", "cuabi_tensor_map_params",
                                             "cuabi_link_options"};
// Covered elsewhere or written by cuabi, not read.
const std::set<std::string> kOtherStructs = {
    "cuabi_compile_options" /* options_sentinel_test.cpp */, "cuabi_kernel_arg" /* no struct_size */,
    "cuabi_launch_item" /* no struct_size; launch_batch_test.cpp reads each field */,
    "cuabi_tensor_map" /* no struct_size: the driver's bytes, written by cuabi */,
    "cuabi_compile_request" /* no struct_size; compile_batch_test.cpp (offline: source, options) and
                               compile_batch_gpu_test.cpp / HostileArguments (context) read each field */,
    "cuabi_link_input" /* no struct_size; link_test.cpp reads each field */,
    "cuabi_device_info", "cuabi_counters", "cuabi_module_info", "cuabi_kernel_attributes", "cuabi_graph_node_info",
    "cuabi_graph_update_info", "cuabi_graph_cache_stats", "cuabi_cache_stats", "cuabi_driver_jit_cache_info"};

TEST(InputStructSentinel, EveryFieldOfEveryInputStructHasAnObservation) {
    size_t fields = 0;
#define CUABI_STRUCT_RELEASES(type, ...)                                                                     \
    EXPECT_TRUE(kInputStructs.count(#type) + kOtherStructs.count(#type) == 1)                                \
        << #type << " is a struct of the ABI model this test does not know: list it in kInputStructs (and " \
        << "give each field an observation) or in kOtherStructs with where it is covered";
#define CUABI_STRUCT_FIELD(type, field)                                                                          \
    if (kInputStructs.count(#type) != 0) {                                                                       \
        ++fields;                                                                                                \
        EXPECT_EQ(observations().count(#type "." #field), 1u)                                                    \
            << #type "." #field " has no observation: add one to observations() in "                             \
            << "tests/unit/input_struct_sentinel_test.cpp -- a sentinel value set through the public call that " \
            << "takes the struct, and what shows that the call read it";                                        \
    }
#include "api/abi_structs.inc"
#undef CUABI_STRUCT_FIELD
#undef CUABI_STRUCT_RELEASES
    EXPECT_EQ(fields, observations().size()) << "the table lists fields the model does not have";
}

TEST(InputStructSentinel, EachSentinelIsReadByTheCallThatTakesTheStruct) {
    for (const auto& [field, observation] : observations()) {
        SCOPED_TRACE(field);
        if (observation.without_gpu) observation.without_gpu();
    }
}

// grid, block, shared_memory_bytes and stream reach the launch: a kernel writes the shape it ran
// with, on the config's stream.
TEST(InputStructSentinel, LaunchGeometryReachesTheKernel) {
    cuabi_context* context = nullptr;
    if (cuabi_context_create(nullptr, &context) != CUABI_SUCCESS)
        GTEST_SKIP() << "needs a GPU: " << cuabi_last_error_message();
    const char* source = R"(extern "C" __global__ void probe(unsigned* out) {
        unsigned dynamic_shared;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynamic_shared));
        if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0 && threadIdx.y == 0) {
            out[0] = gridDim.x; out[1] = gridDim.y; out[2] = gridDim.z;
            out[3] = blockDim.x; out[4] = blockDim.y; out[5] = blockDim.z; out[6] = dynamic_shared;
        }
    })";
    cuabi_module* module = nullptr;
    ASSERT_EQ(cuabi_module_compile(context, source, nullptr, &module), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_kernel* kernel = nullptr;
    ASSERT_EQ(cuabi_module_get_kernel(module, "probe", &kernel), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_buffer* out = nullptr;
    ASSERT_EQ(cuabi_buffer_create(context, 7 * sizeof(unsigned), nullptr, &out), CUABI_SUCCESS);
    cuabi_stream* stream = nullptr;
    ASSERT_EQ(cuabi_stream_create(context, nullptr, &stream), CUABI_SUCCESS);
    uint64_t address = 0;
    ASSERT_EQ(cuabi_buffer_get_device_address(out, &address), CUABI_SUCCESS);
    cuabi_kernel_arg args[] = {{&address, sizeof address}};
    cuabi_launch_config config;
    cuabi_launch_config_init(sizeof config, &config);
    const uint32_t grid[3] = {3, 2, 1}, block[3] = {32, 2, 3};
    std::memcpy(config.grid, grid, sizeof grid);
    std::memcpy(config.block, block, sizeof block);
    config.shared_memory_bytes = 1040;
    config.stream = stream;
    ASSERT_EQ(cuabi_launch(kernel, &config, args, 1), CUABI_SUCCESS) << cuabi_last_error_message();
    ASSERT_EQ(cuabi_stream_synchronize(stream), CUABI_SUCCESS) << cuabi_last_error_message();
    unsigned seen[7] = {};
    ASSERT_EQ(cuabi_buffer_read(out, 0, seen, sizeof seen, nullptr), CUABI_SUCCESS);
    const unsigned expected[7] = {3, 2, 1, 32, 2, 3, 1040};
    for (int i = 0; i < 7; ++i) EXPECT_EQ(seen[i], expected[i]) << "value " << i;
    cuabi_stream_destroy(stream);
    cuabi_buffer_destroy(out);
    cuabi_kernel_destroy(kernel);
    cuabi_module_destroy(module);
    cuabi_context_destroy(context);
}

}  // namespace
