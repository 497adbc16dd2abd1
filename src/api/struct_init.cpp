// The cuabi_<struct>_init() functions of every versioned struct, in the header's order: each fills
// the caller's struct_size bytes with the struct's defaults (api/versioned_struct.hpp).
#include "api/guard.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_device_info_init(uint32_t struct_size, cuabi_device_info* out_info) try {
    return init_struct(struct_size, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_context_options_init(uint32_t struct_size, cuabi_context_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_counters_init(uint32_t struct_size, cuabi_counters* out_counters) try {
    return init_struct(struct_size, out_counters);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_stream_options_init(uint32_t struct_size, cuabi_stream_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_event_options_init(uint32_t struct_size, cuabi_event_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_buffer_options_init(uint32_t struct_size, cuabi_buffer_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_host_memory_options_init(uint32_t struct_size,
                                                      cuabi_host_memory_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_memory_pool_options_init(uint32_t struct_size, cuabi_memory_pool_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_compile_options_init(uint32_t struct_size, cuabi_compile_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_module_info_init(uint32_t struct_size, cuabi_module_info* out_info) try {
    return init_struct(struct_size, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_kernel_attributes_init(uint32_t struct_size, cuabi_kernel_attributes* out_attributes) try {
    return init_struct(struct_size, out_attributes);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_launch_config_init(uint32_t struct_size, cuabi_launch_config* out_config) try {
    return init_struct(struct_size, out_config);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_options_init(uint32_t struct_size, cuabi_graph_options* out_options) try {
    return init_struct(struct_size, out_options);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_node_info_init(uint32_t struct_size, cuabi_graph_node_info* out_info) try {
    return init_struct(struct_size, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_memcpy_params_init(uint32_t struct_size, cuabi_graph_memcpy_params* out_params) try {
    return init_struct(struct_size, out_params);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_update_info_init(uint32_t struct_size, cuabi_graph_update_info* out_info) try {
    return init_struct(struct_size, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_cache_stats_init(uint32_t struct_size, cuabi_graph_cache_stats* out_stats) try {
    return init_struct(struct_size, out_stats);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_cache_stats_init(uint32_t struct_size, cuabi_cache_stats* out_stats) try {
    return init_struct(struct_size, out_stats);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_driver_jit_cache_info_init(uint32_t struct_size,
                                                        cuabi_driver_jit_cache_info* out_info) try {
    return init_struct(struct_size, out_info);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
