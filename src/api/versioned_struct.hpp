// The public versioned structs (those that begin with struct_size) as src/api reads and writes
// them: each knows its name, the struct_size of every release (abi_structs.inc, from the ABI
// model) and its defaults (the header's _INIT macro), so an entry point names none of them.
#pragma once

#include <iterator>

#include "api/arguments.hpp"
#include "core/options.hpp"
#include "cuabi/cuabi.h"

namespace cuabi {

template <typename T>
struct StructReleases;  // one per struct of the ABI model

#define CUABI_STRUCT_RELEASES(type, ...)                              \
    template <>                                                       \
    struct StructReleases<type> {                                     \
        static constexpr uint32_t released[] = {__VA_ARGS__};         \
        static constexpr const char* name = #type;                    \
    };
#define CUABI_STRUCT_FIELD(type, field)
#include "api/abi_structs.inc"
#undef CUABI_STRUCT_FIELD
#undef CUABI_STRUCT_RELEASES

template <typename T>
struct StructDefaults;  // the header's _INIT macro of each versioned struct

#define CUABI_STRUCT_DEFAULTS(type, init_macro) \
    template <>                                 \
    struct StructDefaults<type> {               \
        static constexpr type value = type init_macro; \
    };
CUABI_STRUCT_DEFAULTS(cuabi_device_info, CUABI_DEVICE_INFO_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_context_options, CUABI_CONTEXT_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_counters, CUABI_COUNTERS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_stream_options, CUABI_STREAM_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_event_options, CUABI_EVENT_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_buffer_options, CUABI_BUFFER_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_host_memory_options, CUABI_HOST_MEMORY_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_memory_pool_options, CUABI_MEMORY_POOL_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_compile_options, CUABI_COMPILE_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_link_options, CUABI_LINK_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_module_info, CUABI_MODULE_INFO_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_kernel_attributes, CUABI_KERNEL_ATTRIBUTES_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_launch_config, CUABI_LAUNCH_CONFIG_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_graph_options, CUABI_GRAPH_OPTIONS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_graph_node_info, CUABI_GRAPH_NODE_INFO_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_graph_memcpy_params, CUABI_GRAPH_MEMCPY_PARAMS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_tensor_map_params, CUABI_TENSOR_MAP_PARAMS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_graph_update_info, CUABI_GRAPH_UPDATE_INFO_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_graph_cache_stats, CUABI_GRAPH_CACHE_STATS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_cache_stats, CUABI_CACHE_STATS_INIT)
CUABI_STRUCT_DEFAULTS(cuabi_driver_jit_cache_info, CUABI_DRIVER_JIT_CACHE_INFO_INIT)
#undef CUABI_STRUCT_DEFAULTS

// Constant: the hot paths (a launch, a compile's memory hit) check sizes without a static guard.
template <typename T>
inline constexpr StructSizes kStructSizes{StructReleases<T>::name, StructReleases<T>::released,
                                          std::size(StructReleases<T>::released)};

template <typename T>
const StructSizes& struct_sizes() {
    // A field added to the header without the model regenerated would otherwise pass as a release.
    static_assert(kStructSizes<T>.newest() == sizeof(T),
                  "the newest released size in abi_structs.inc is not this header's sizeof: regenerate it "
                  "(scripts/regenerate.sh)");
    return kStructSizes<T>;
}

// The caller's input struct over the defaults (NULL: the defaults), refused unless its
// struct_size is one a header declared.
template <typename T>
Status read_struct(const T* user, T* out) {
    return read_options(user, StructDefaults<T>::value, struct_sizes<T>(), out);
}

// As read_struct, without a copy of a complete struct (core/options.hpp, view_options).
template <typename T>
Status view_struct(const T* user, T* scratch, const T** out) {
    return view_options(user, StructDefaults<T>::value, struct_sizes<T>(), scratch, out);
}

// The body of every cuabi_<struct>_init().
template <typename T>
Status init_struct(uint32_t struct_size, T* out) {
    return init_struct(StructDefaults<T>::value, struct_size, out, struct_sizes<T>());
}

// An output struct parameter: not NULL, and of a size a header declared. Checked before any work
// so that the caller learns it without a GPU.
template <typename T>
Status require_output(T* out, const char* parameter_name) {
    Status status = require_pointer(out, parameter_name);
    return status == CUABI_SUCCESS ? check_output_struct_size(out->struct_size, struct_sizes<T>()) : status;
}

// `value` into the caller's output struct, as far as its struct_size reaches.
template <typename T>
Status write_output(const T& value, T* out) {
    return write_output(value, out, struct_sizes<T>());
}

}  // namespace cuabi
