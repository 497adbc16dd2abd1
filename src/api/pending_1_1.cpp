// TEMPORARY while issue 18 is implemented on branches i18a and i18b: the 1.1 functions the header
// declares, refusing with UNSUPPORTED until their real definitions replace them, so that the
// library links against its version script meanwhile. Each implementing branch deletes the
// definitions it replaces; this file must be gone before anything merges into main.
#include "core/error.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

extern "C" {

CUABI_API cuabi_status cuabi_kernel_set_attribute(cuabi_kernel*, int32_t, int32_t) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_kernel_set_attribute is not implemented yet");
}

CUABI_API cuabi_status cuabi_kernel_get_max_active_clusters(cuabi_kernel*, const cuabi_launch_config*, uint32_t*) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_kernel_get_max_active_clusters is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_memcpy_params_init(uint32_t, cuabi_graph_memcpy_params*) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_memcpy_params_init is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_update_memcpy(cuabi_graph*, size_t, const cuabi_graph_memcpy_params*) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_update_memcpy is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_set_node_enabled(cuabi_graph*, size_t, uint32_t) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_set_node_enabled is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_get_node_enabled(cuabi_graph*, size_t, uint32_t*) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_get_node_enabled is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_write_dot(cuabi_graph*, const char*, uint32_t) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_write_dot is not implemented yet");
}

CUABI_API cuabi_status cuabi_graph_get_dot(cuabi_graph*, uint32_t, char*, size_t, size_t*) {
    return fail(CUABI_ERROR_UNSUPPORTED, "wait for issue 18 to land", "cuabi_graph_get_dot is not implemented yet");
}

}  // extern "C"
