// Every versioned struct, every struct_size from 0 to 64 past its newest size, through the public
// calls that take it and through its _init(): a size some release had, or a larger one (a newer
// header) with a zero tail, is accepted; any other size is refused with CUABI_ERROR_STRUCT_SIZE
// naming the struct, the size and the released sizes. The structs come from api/abi_structs.inc
// (the ABI model), so a new struct fails here until the table below lists the calls that take it.
//
// A refused size used to be read: 12, 20 or 28 ended inside a pointer of cuabi_compile_options,
// and the library dereferenced half the caller's pointer and half the default's.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {
namespace {

template <typename T, typename = void>
struct HasStructSize : std::false_type {};
template <typename T>
struct HasStructSize<T, std::void_t<decltype(std::declval<T&>().struct_size)>> : std::true_type {};

cuabi_graph* made_up_graph() { return reinterpret_cast<cuabi_graph*>(uint64_t{7} << 56 | uint64_t{1} << 32 | 4000000u); }

// A public call given the caller's struct (its bytes laid out as the test prepared them).
using Call = std::function<cuabi_status(void*)>;

// The calls that take each struct, each made to fail right after it read the struct when it
// accepted it (a NULL or made-up handle, a negative ordinal), so that a size that was accepted
// never reaches a GPU. A struct the model lists and this table does not fails the test.
template <typename T>
struct Calls {
    static constexpr bool listed = false;
    static constexpr bool output = false;
    static void prepare(T*) {}
    static std::vector<Call> list() { return {}; }
};

#define CUABI_CALLS_OF(type, is_output, prepare_body, ...)                         \
    template <>                                                                    \
    struct Calls<type> {                                                           \
        static constexpr bool listed = true;                                       \
        static constexpr bool output = is_output;                                  \
        static void prepare([[maybe_unused]] type* s) { prepare_body; }            \
        static std::vector<Call> list() { return {__VA_ARGS__}; }                  \
    };
#define CUABI_CALLS(type, prepare_body, ...) CUABI_CALLS_OF(type, false, prepare_body, __VA_ARGS__)
#define CUABI_OUTPUT_CALLS(type, ...) CUABI_CALLS_OF(type, true, (void)0, __VA_ARGS__)
#define AS(type) static_cast<type*>(p)

CUABI_CALLS(cuabi_context_options, s->device_ordinal = -1, [](void* p) {
    cuabi_context* out = nullptr;
    return cuabi_context_create(AS(const cuabi_context_options), &out);
})
CUABI_CALLS(cuabi_stream_options, (void)0, [](void* p) {
    cuabi_stream* out = nullptr;
    return cuabi_stream_create(nullptr, AS(const cuabi_stream_options), &out);
})
CUABI_CALLS(cuabi_event_options, (void)0, [](void* p) {
    cuabi_event* out = nullptr;
    return cuabi_event_create(nullptr, AS(const cuabi_event_options), &out);
})
CUABI_CALLS(cuabi_buffer_options, (void)0,
            [](void* p) {
                cuabi_buffer* out = nullptr;
                return cuabi_buffer_create(nullptr, 16, AS(const cuabi_buffer_options), &out);
            },
            [](void* p) {
                cuabi_buffer* out = nullptr;
                return cuabi_buffer_create_async(nullptr, 16, nullptr, AS(const cuabi_buffer_options), nullptr, &out);
            })
CUABI_CALLS(cuabi_memory_pool_options, (void)0, [](void* p) {
    cuabi_memory_pool* out = nullptr;
    return cuabi_memory_pool_create(nullptr, AS(const cuabi_memory_pool_options), &out);
})
CUABI_CALLS(cuabi_host_memory_options, (void)0,
            [](void* p) {
                cuabi_host_memory* out = nullptr;
                return cuabi_host_memory_create(nullptr, 16, AS(const cuabi_host_memory_options), &out);
            },
            [](void* p) {
                cuabi_host_memory* out = nullptr;
                static char host[16];
                return cuabi_host_memory_register(nullptr, host, sizeof host, AS(const cuabi_host_memory_options),
                                                  &out);
            })
CUABI_CALLS(cuabi_compile_options, (void)0, [](void* p) {
    cuabi_module* out = nullptr;
    return cuabi_module_compile(nullptr, "__global__ void k() {}", AS(const cuabi_compile_options), &out);
})
CUABI_CALLS(cuabi_link_options, (void)0,
            [](void* p) {
                cuabi_module* out = nullptr;
                return cuabi_module_link(nullptr, nullptr, 0, AS(const cuabi_link_options), &out);
            },
            [](void* p) {
                cuabi_module* out = nullptr;  // no target: refused right after the struct was read
                return cuabi_module_link_offline(nullptr, 0, AS(const cuabi_link_options), &out);
            })
CUABI_CALLS(cuabi_launch_config, (void)0,
            [](void* p) { return cuabi_launch(nullptr, AS(const cuabi_launch_config), nullptr, 0); },
            [](void* p) { return cuabi_launch_packed(nullptr, AS(const cuabi_launch_config), nullptr, 0); },
            [](void* p) {
                uint32_t clusters = 0;
                return cuabi_kernel_get_max_active_clusters(nullptr, AS(const cuabi_launch_config), &clusters);
            })
CUABI_CALLS(cuabi_graph_memcpy_params, s->size = 16, [](void* p) {
    return cuabi_graph_update_memcpy(made_up_graph(), 0, AS(const cuabi_graph_memcpy_params));
})
// A valid description, so that an accepted size reaches the (made-up) buffer handle.
CUABI_CALLS(cuabi_tensor_map_params,
            (s->rank = 2, s->global_dims[0] = 64, s->global_dims[1] = 32, s->global_strides[0] = 256,
             s->box_dims[0] = 32, s->box_dims[1] = 8),
            [](void* p) {
                cuabi_tensor_map map;
                return cuabi_tensor_map_encode_tiled(reinterpret_cast<cuabi_buffer*>(uint64_t{4} << 56 | 4000006u),
                                                     AS(const cuabi_tensor_map_params), &map);
            })
CUABI_OUTPUT_CALLS(cuabi_device_info,
            [](void* p) { return cuabi_device_get_info(-1, AS(cuabi_device_info)); },
            [](void* p) { return cuabi_context_get_device_info(nullptr, AS(cuabi_device_info)); })
CUABI_OUTPUT_CALLS(cuabi_counters, [](void* p) { return cuabi_context_get_counters(nullptr, AS(cuabi_counters)); })
CUABI_OUTPUT_CALLS(cuabi_module_info, [](void* p) { return cuabi_module_get_info(nullptr, AS(cuabi_module_info)); })
CUABI_OUTPUT_CALLS(cuabi_kernel_attributes,
            [](void* p) { return cuabi_kernel_get_attributes(nullptr, AS(cuabi_kernel_attributes)); })
CUABI_OUTPUT_CALLS(cuabi_graph_node_info,
            [](void* p) { return cuabi_graph_get_node_info(made_up_graph(), 0, AS(cuabi_graph_node_info)); })
CUABI_OUTPUT_CALLS(cuabi_graph_cache_stats,
            [](void* p) { return cuabi_graph_cache_get_stats(AS(cuabi_graph_cache_stats)); })
CUABI_OUTPUT_CALLS(cuabi_cache_stats, [](void* p) { return cuabi_cache_get_stats(AS(cuabi_cache_stats)); })
CUABI_OUTPUT_CALLS(cuabi_driver_jit_cache_info,
            [](void* p) { return cuabi_cache_get_driver_jit_info(AS(cuabi_driver_jit_cache_info)); })
// The two that take a struct only after a live, capturing stream: checked on a GPU by
// StructSizeOnACapturingStream below.
CUABI_CALLS(cuabi_graph_options, (void)0)
CUABI_OUTPUT_CALLS(cuabi_graph_update_info)
#undef AS
#undef CUABI_OUTPUT_CALLS
#undef CUABI_CALLS
#undef CUABI_CALLS_OF

std::string released_text(const StructSizes& sizes) {
    std::string text;
    for (size_t i = 0; i < sizes.count; ++i)
        text += (i == 0 ? "" : i + 1 == sizes.count ? " or " : ", ") + std::to_string(sizes.released[i]);
    return text;
}

bool declared(const StructSizes& sizes, uint32_t size) {
    if (size > sizes.newest()) return true;
    for (size_t i = 0; i < sizes.count; ++i)
        if (sizes.released[i] == size) return true;
    return false;
}

// The caller's bytes for `size`: the struct as _init() of the newest size prepares it (then the
// call's own setup), struct_size set to `size`; past a smaller size, garbage the call must not
// read; past the newest size, the zeros a newer header's _init() writes.
template <typename T>
std::vector<unsigned char> caller_bytes(uint32_t size) {
    std::vector<unsigned char> bytes(std::max<size_t>(sizeof(T), size) + 64, 0xA5);
    std::memset(bytes.data(), 0, std::max<size_t>(sizeof(T), size));
    T* s = reinterpret_cast<T*>(bytes.data());
    EXPECT_EQ(init_struct(sizeof(T), s), CUABI_SUCCESS);
    Calls<T>::prepare(s);
    if (size < sizeof(T)) std::memset(bytes.data() + size, 0xA5, sizeof(T) - size);
    s->struct_size = size;
    return bytes;
}

void expect_refused(cuabi_status status, const StructSizes& sizes, const std::string& said, const char* call) {
    const std::string message = cuabi_last_error_message();
    EXPECT_EQ(status, CUABI_ERROR_STRUCT_SIZE) << call << ": " << message;
    EXPECT_NE(message.find(said), std::string::npos) << call << ": message lacks '" << said << "': " << message;
    EXPECT_NE(message.find(released_text(sizes) + " bytes"), std::string::npos) << call << ": " << message;
    EXPECT_NE(message.find("Fix: "), std::string::npos) << call << ": " << message;
}

template <typename T>
void check_every_size(const char* name) {
    SCOPED_TRACE(name);
    const StructSizes& sizes = struct_sizes<T>();
    ASSERT_TRUE(Calls<T>::listed) << name << " is a versioned struct of the ABI model with no entry in this "
                                  << "test's table: add CUABI_CALLS(" << name
                                  << ", ...) listing the public calls that take it";
    const std::string init_name = std::string(name) + "_init";
    auto init = reinterpret_cast<cuabi_status (*)(uint32_t, T*)>(cuabi_get_proc_address(init_name.c_str()));
    ASSERT_NE(init, nullptr) << init_name;
    for (uint32_t size = 0; size <= sizes.newest() + 64; ++size) {
        SCOPED_TRACE("struct_size " + std::to_string(size));
        std::vector<unsigned char> scratch(size + sizeof(T) + 64, 0);
        const cuabi_status initialized = init(size, reinterpret_cast<T*>(scratch.data()));
        if (declared(sizes, size)) {
            EXPECT_EQ(initialized, CUABI_SUCCESS) << cuabi_last_error_message();
            EXPECT_EQ(reinterpret_cast<T*>(scratch.data())->struct_size, size);
        } else {
            expect_refused(initialized, sizes, init_name + "() was given struct_size " + std::to_string(size),
                           init_name.c_str());
        }
        for (const Call& call : Calls<T>::list()) {
            std::vector<unsigned char> bytes = caller_bytes<T>(size);
            const cuabi_status status = call(bytes.data());
            if (declared(sizes, size))
                EXPECT_NE(status, CUABI_ERROR_STRUCT_SIZE) << cuabi_last_error_message();
            else
                expect_refused(status, sizes, std::string(name) + ".struct_size is " + std::to_string(size), name);
        }
    }
}

// An input struct larger than this library's, with a byte of its unknown tail set: refused.
template <typename T>
void check_non_zero_tail(const char* name) {
    SCOPED_TRACE(name);
    for (const Call& call : Calls<T>::list()) {
        std::vector<unsigned char> bytes = caller_bytes<T>(sizeof(T) + 8);
        bytes[sizeof(T) + 3] = 1;
        const cuabi_status status = call(bytes.data());
        if (Calls<T>::output)  // the tail of a newer output struct is the caller's memory: left alone, not judged
            EXPECT_NE(status, CUABI_ERROR_STRUCT_SIZE) << cuabi_last_error_message();
        else
            EXPECT_EQ(status, CUABI_ERROR_STRUCT_SIZE) << cuabi_last_error_message();
    }
}

TEST(StructSize, EverySizeOfEveryVersionedStructIsAReleaseOrRefused) {
    size_t structs = 0;
#define CUABI_STRUCT_RELEASES(type, ...)                                        \
    if constexpr (HasStructSize<type>::value) {                                  \
        check_every_size<type>(#type);                                           \
        ++structs;                                                               \
    }
#define CUABI_STRUCT_FIELD(type, field)
#include "api/abi_structs.inc"
#undef CUABI_STRUCT_FIELD
#undef CUABI_STRUCT_RELEASES
    EXPECT_GE(structs, 18u);
}

TEST(StructSize, LargerInputStructWithANonZeroTailIsRefused) {
#define CUABI_STRUCT_RELEASES(type, ...) \
    if constexpr (HasStructSize<type>::value) check_non_zero_tail<type>(#type);
#define CUABI_STRUCT_FIELD(type, field)
#include "api/abi_structs.inc"
#undef CUABI_STRUCT_FIELD
#undef CUABI_STRUCT_RELEASES
}

// The sizes that crashed: they end inside a pointer of cuabi_compile_options.
TEST(StructSize, CompileOptionsEndingInsideAPointerAreRefused) {
    for (uint32_t size : {12u, 20u, 24u, 28u}) {
        cuabi_compile_options options = CUABI_COMPILE_OPTIONS_INIT;
        options.struct_size = size;
        cuabi_module* module = nullptr;
        const cuabi_status status = cuabi_module_compile_offline("__global__ void k() {}", &options, &module);
        expect_refused(status, struct_sizes<cuabi_compile_options>(),
                       "cuabi_compile_options.struct_size is " + std::to_string(size), "compile_offline");
        EXPECT_EQ(module, nullptr);
    }
}

// cuabi_graph_capture_end and _end_update take their struct after a live stream that captures
// (a refused struct must still end the capture), so they are tried on a GPU.
TEST(StructSize, StructSizeOnACapturingStream) {
    cuabi_context* context = nullptr;
    if (cuabi_context_create(nullptr, &context) != CUABI_SUCCESS)
        GTEST_SKIP() << "no usable GPU for a capturing stream: " << cuabi_last_error_message();
    cuabi_stream* stream = nullptr;
    ASSERT_EQ(cuabi_stream_create(context, nullptr, &stream), CUABI_SUCCESS) << cuabi_last_error_message();
    cuabi_buffer* buffer = nullptr;
    ASSERT_EQ(cuabi_buffer_create(context, 64, nullptr, &buffer), CUABI_SUCCESS) << cuabi_last_error_message();
    // Every capture records the same fill, so each update matches the graph's topology.
    auto begin = [&] {
        ASSERT_EQ(cuabi_graph_capture_begin(stream, CUABI_CAPTURE_MODE_THREAD_LOCAL), CUABI_SUCCESS);
        ASSERT_EQ(cuabi_buffer_fill(buffer, 0, 1u, 4u, 16, stream), CUABI_SUCCESS) << cuabi_last_error_message();
    };
    cuabi_graph* base = nullptr;
    begin();
    ASSERT_EQ(cuabi_graph_capture_end(stream, nullptr, &base), CUABI_SUCCESS) << cuabi_last_error_message();
    const StructSizes& options_sizes = struct_sizes<cuabi_graph_options>();
    const StructSizes& info_sizes = struct_sizes<cuabi_graph_update_info>();
    for (uint32_t size = 0; size <= info_sizes.newest() + 64; ++size) {
        SCOPED_TRACE("struct_size " + std::to_string(size));
        if (size <= options_sizes.newest() + 64) {
            std::vector<unsigned char> bytes = caller_bytes<cuabi_graph_options>(size);
            begin();
            cuabi_graph* graph = nullptr;
            const cuabi_status status =
                cuabi_graph_capture_end(stream, reinterpret_cast<cuabi_graph_options*>(bytes.data()), &graph);
            if (declared(options_sizes, size))
                EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_last_error_message();
            else
                expect_refused(status, options_sizes, "cuabi_graph_options.struct_size is " + std::to_string(size),
                               "capture_end");
            cuabi_graph_destroy(graph);
        }
        std::vector<unsigned char> bytes = caller_bytes<cuabi_graph_update_info>(size);
        begin();
        const cuabi_status status = cuabi_graph_capture_end_update(
            stream, base, CUABI_GRAPH_UPDATE_DEFAULT, reinterpret_cast<cuabi_graph_update_info*>(bytes.data()));
        if (declared(info_sizes, size))
            EXPECT_EQ(status, CUABI_SUCCESS) << cuabi_last_error_message();
        else
            expect_refused(status, info_sizes, "cuabi_graph_update_info.struct_size is " + std::to_string(size),
                           "capture_end_update");
        int32_t capture = -1;
        ASSERT_EQ(cuabi_graph_capture_get_status(stream, &capture), CUABI_SUCCESS);
        EXPECT_EQ(capture, CUABI_CAPTURE_STATUS_NONE) << "a refused struct left the stream capturing";
    }
    cuabi_graph_destroy(base);
    cuabi_buffer_destroy(buffer);
    cuabi_stream_destroy(stream);
    cuabi_context_destroy(context);
}

}  // namespace
}  // namespace cuabi
