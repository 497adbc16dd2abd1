// Entry points of the "Graph" group added in 1.1: memcpy node updates, turning nodes off and on,
// and DOT dumps (graph/node_control.cpp).
#include <string>

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "api/versioned_struct.hpp"
#include "cuabi/cuabi.h"
#include "device/buffer.hpp"
#include "graph/graph.hpp"

using namespace cuabi;
using graph::Graph;

namespace {

constexpr uint32_t kKnownDotFlags = CUABI_GRAPH_DOT_VERBOSE;

// One side of the params: exactly one of a buffer and host memory; host memory has no offset.
Status read_end(cuabi_buffer* buffer, void* host, uint64_t offset, const char* side, graph::MemcpyEnd* out) {
    if ((buffer == nullptr) == (host == nullptr))
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "set exactly one of the buffer and the host pointer of each side",
                    "cuabi_graph_memcpy_params gives %s for the %s", buffer == nullptr ? "neither a buffer nor host memory" : "both a buffer and host memory", side);
    if (host != nullptr && offset != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "add the offset to the host pointer instead, and pass offset 0",
                    "cuabi_graph_memcpy_params has %s offset %llu with host memory", side,
                    static_cast<unsigned long long>(offset));
    out->host = host;
    out->offset = offset;
    if (buffer == nullptr) return CUABI_SUCCESS;
    out->buffer = acquire<Buffer>(buffer, side[0] == 'd' ? "cuabi_graph_memcpy_params.dst_buffer"
                                                         : "cuabi_graph_memcpy_params.src_buffer");
    return out->buffer != nullptr ? CUABI_SUCCESS : refused_handle();
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_graph_update_memcpy(cuabi_graph* graph, size_t index,
                                                 const cuabi_graph_memcpy_params* params) try {
    Status status = require_pointer(params, "params");
    if (status != CUABI_SUCCESS) return status;
    cuabi_graph_memcpy_params read;
    if ((status = read_struct(params, &read)) != CUABI_SUCCESS) return status;
    if (read.reserved != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "leave reserved 0 (cuabi_graph_memcpy_params_init does)",
                    "cuabi_graph_memcpy_params.reserved is %u", read.reserved);
    if (read.size == 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the number of bytes to copy (at least 1)",
                    "cuabi_graph_memcpy_params.size is 0");
    Pinned<Graph> pinned(graph, "graph");
    if (!pinned.ok()) return refused_handle();
    graph::MemcpyEnd dst, src;
    if ((status = read_end(read.dst_buffer, read.dst_host, read.dst_offset, "destination", &dst)) != CUABI_SUCCESS ||
        (status = read_end(read.src_buffer, const_cast<void*>(read.src_host), read.src_offset, "source", &src)) !=
            CUABI_SUCCESS)
        return status;
    return pinned->update_memcpy(index, std::move(dst), std::move(src), read.size);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_set_node_enabled(cuabi_graph* graph, size_t index, uint32_t enabled) try {
    if (enabled > 1)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass 1 to turn the node on, 0 to turn it off", "enabled is %u",
                    enabled);
    return with_pinned<Graph>(graph, "graph",
                              [&](Graph& updated) { return updated.set_node_enabled(index, enabled == 1); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_node_enabled(cuabi_graph* graph, size_t index, uint32_t* out_enabled) try {
    if (Status status = require_pointer(out_enabled, "out_enabled")) return status;
    return with_pinned<Graph>(graph, "graph", [&](Graph& read) {
        bool enabled = false;
        Status status = read.node_enabled(index, &enabled);
        if (status == CUABI_SUCCESS) *out_enabled = enabled ? 1u : 0u;
        return status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_write_dot(cuabi_graph* graph, const char* path, uint32_t flags) try {
    Status status = require_pointer(path, "path");
    if (status == CUABI_SUCCESS && path[0] == '\0')
        status = fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the path of the file to write", "path is an empty string");
    if (status == CUABI_SUCCESS)
        status = require_known_flags(flags, kKnownDotFlags, "flags", "CUABI_GRAPH_DOT_*");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<Graph>(graph, "graph",
                              [&](Graph& read) { return read.write_dot(path, (flags & CUABI_GRAPH_DOT_VERBOSE) != 0); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_dot(cuabi_graph* graph, uint32_t flags, char* out_text, size_t capacity,
                                           size_t* out_size) try {
    Status status = require_pointer(out_size, "out_size");
    if (status == CUABI_SUCCESS) status = require_known_flags(flags, kKnownDotFlags, "flags", "CUABI_GRAPH_DOT_*");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<Graph>(graph, "graph", [&](Graph& read) {
        std::string text;
        Status dotted = read.dot_text((flags & CUABI_GRAPH_DOT_VERBOSE) != 0, &text);
        return dotted == CUABI_SUCCESS ? copy_text_out(text, out_text, capacity, out_size) : dotted;
    });
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
