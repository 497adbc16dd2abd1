// Entry points of the "Graph" group of cuabi.h: capture, replay, inventory, updates, graph cache.
#include <cstdio>
#include <string>

#include "api/arguments.hpp"
#include "api/guard.hpp"
#include "api/two_call.hpp"
#include "api/versioned_struct.hpp"
#include "core/fork.hpp"
#include "cuabi/cuabi.h"
#include "device/stream.hpp"
#include "graph/capture.hpp"
#include "graph/graph.hpp"
#include "graph/graph_cache.hpp"

using namespace cuabi;
using graph::Graph;

namespace {

constexpr uint32_t kKnownGraphFlags = CUABI_GRAPH_AUTO_FREE_ON_LAUNCH | CUABI_GRAPH_USE_NODE_PRIORITY | CUABI_GRAPH_UPLOAD;
constexpr uint32_t kKnownUpdateFlags = CUABI_GRAPH_UPDATE_NO_REINSTANTIATE;

Status require_key(const void* key, size_t key_size) {
    if (key != nullptr || key_size == 0) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass the key bytes, or key_size 0 for an empty key",
                "key is NULL but key_size is %zu", key_size);
}

void fill_update_info(const graph::UpdateOutcome& outcome, cuabi_graph_update_info* info) {
    info->struct_size = sizeof *info;
    info->reinstantiated = outcome.reinstantiated ? 1u : 0u;
    info->driver_result = outcome.driver_result;
    info->has_error_node = outcome.error_node != UINT64_MAX ? 1u : 0u;
    info->error_node_index = outcome.error_node != UINT64_MAX ? outcome.error_node : 0u;
    std::snprintf(info->reason, sizeof info->reason, "%s", outcome.reason.c_str());
}

}  // namespace

extern "C" {

CUABI_API cuabi_status cuabi_graph_capture_begin(cuabi_stream* stream, int32_t mode) try {
    return with_pinned<Stream>(stream, "stream", [&](Stream& pinned) { return graph::begin_capture(pinned, mode); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_end(cuabi_stream* stream, const cuabi_graph_options* options,
                                               cuabi_graph** out_graph) try {
    std::shared_ptr<Stream> held = acquire<Stream>(stream, "stream");
    if (!held) return refused_handle();
    cuabi_graph_options read;
    Status status = read_struct(options, &read);
    if (status == CUABI_SUCCESS) status = require_known_flags(read.flags, kKnownGraphFlags, "cuabi_graph_options.flags", "CUABI_GRAPH_*");
    if (status == CUABI_SUCCESS) status = require_pointer(out_graph, "out_graph");
    // Whatever is wrong with the call, the capture ends: a stream is never left capturing.
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(held.get(), status);
    CUgraph captured = nullptr;
    if ((status = graph::end_capture(*held, &captured)) != CUABI_SUCCESS) return status;
    std::shared_ptr<Graph> created;
    status = Graph::create(held->context_ref(), captured, read.flags, *held, &created);
    return publish_created(status, std::move(created), out_graph);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_end_update(cuabi_stream* stream, cuabi_graph* graph, uint32_t flags,
                                                      cuabi_graph_update_info* out_info) try {
    std::shared_ptr<Stream> held = acquire<Stream>(stream, "stream");
    if (!held) return refused_handle();
    Pinned<Graph> pinned(graph, "graph");
    Status status = pinned.ok() ? CUABI_SUCCESS : refused_handle();
    if (status == CUABI_SUCCESS) status = require_known_flags(flags, kKnownUpdateFlags, "flags", "CUABI_GRAPH_UPDATE_*");
    if (status == CUABI_SUCCESS && out_info != nullptr)
        status = require_output(out_info, "out_info");
    if (status == CUABI_SUCCESS && held->context().cu_context() != pinned->context().cu_context())
        status = fail(CUABI_ERROR_CONTEXT_MISMATCH, "capture the update on a stream of the graph's context",
                      "the capture is on a stream of device %d but the graph belongs to device %d",
                      held->context().ordinal(), pinned->context().ordinal());
    if (status != CUABI_SUCCESS) return graph::end_capture_after_failure(held.get(), status);
    CUgraph captured = nullptr;
    if ((status = graph::end_capture(*held, &captured)) != CUABI_SUCCESS) return status;
    graph::UpdateOutcome outcome;
    status = pinned->update_from(captured, (flags & CUABI_GRAPH_UPDATE_NO_REINSTANTIATE) == 0, &outcome);
    if (out_info != nullptr && (status == CUABI_SUCCESS || status == CUABI_ERROR_GRAPH_UPDATE)) {
        cuabi_graph_update_info info{};
        fill_update_info(outcome, &info);
        write_output(info, out_info);
    }
    return status;
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_abort(cuabi_stream* stream) try {
    return with_pinned<Stream>(stream, "stream", [](Stream& pinned) { return graph::abort_capture(pinned); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_capture_get_status(cuabi_stream* stream, int32_t* out_status) try {
    if (Status status = require_pointer(out_status, "out_status")) return status;
    return with_pinned<Stream>(stream, "stream",
                               [&](Stream& pinned) { return graph::capture_status(pinned, out_status); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_launch(cuabi_graph* graph, cuabi_stream* stream) try {
    return with_pinned<Graph>(graph, "graph", [&](Graph& pinned) {
        if (stream == nullptr) return pinned.launch_synchronously();
        return with_pinned<Stream>(stream, "stream", [&](Stream& on) { return pinned.launch(on); });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_upload(cuabi_graph* graph, cuabi_stream* stream) try {
    return with_pinned<Graph>(graph, "graph", [&](Graph& pinned) {
        if (stream == nullptr) return pinned.upload_synchronously();
        return with_pinned<Stream>(stream, "stream", [&](Stream& on) { return pinned.upload(on); });
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_retain_buffer(cuabi_graph* graph, cuabi_buffer* buffer) try {
    return with_pinned<Graph>(graph, "graph", [&](Graph& pinned) {
        std::shared_ptr<Buffer> held = acquire<Buffer>(buffer, "buffer");
        return held ? pinned.retain_buffer(std::move(held)) : refused_handle();
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_native(cuabi_graph* graph, void** out_cu_graph, void** out_cu_graph_exec) try {
    return get_value<Graph>(graph, "graph", out_cu_graph_exec, "out_cu_graph_exec", [&](Graph& read) {
        if (out_cu_graph != nullptr) *out_cu_graph = read.native_graph();
        return read.native_exec();
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_node_count(cuabi_graph* graph, size_t* out_count) try {
    return get_value<Graph>(graph, "graph", out_count, "out_count", [](Graph& read) { return read.node_count(); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_node_info(cuabi_graph* graph, size_t index,
                                                 cuabi_graph_node_info* out_info) try {
    Status status = require_output(out_info, "out_info");
    if (status != CUABI_SUCCESS) return status;
    graph::NodeInfo node;
    status = with_pinned<Graph>(graph, "graph", [&](Graph& read) { return read.node_info(index, &node); });
    if (status != CUABI_SUCCESS) return status;
    cuabi_graph_node_info read CUABI_GRAPH_NODE_INFO_INIT;
    read.kind = node.kind;
    read.kernel = reinterpret_cast<cuabi_kernel*>(node.kernel);
    for (int i = 0; i < 3; ++i) {
        read.grid[i] = node.grid[i];
        read.block[i] = node.block[i];
    }
    read.shared_memory_bytes = node.shared_memory_bytes;
    read.param_count = node.param_count;
    read.param_bytes = node.param_bytes;
    read.memset_value = node.memset_value;
    read.memset_element_size = node.memset_element_size;
    read.conditional_type = node.conditional.type;
    read.conditional_body_count = node.conditional.body_count;
    read.condition = node.conditional.condition;
    read.conditional_body_nodes = node.conditional.body_nodes;
    return write_output(read, out_info);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_node_kernel_name(cuabi_graph* graph, size_t index, char* out_text,
                                                        size_t capacity, size_t* out_size) try {
    if (Status status = require_pointer(out_size, "out_size")) return status;
    return with_pinned<Graph>(graph, "graph", [&](Graph& read) {
        std::string name;
        Status status = read.node_kernel_name(index, &name);
        return status == CUABI_SUCCESS ? copy_text_out(name, out_text, capacity, out_size) : status;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_get_node_param_info(cuabi_graph* graph, size_t index, size_t param_index,
                                                   size_t* out_offset, size_t* out_size) try {
    Status status = require_pointer(out_offset, "out_offset");
    if (status == CUABI_SUCCESS) status = require_pointer(out_size, "out_size");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<Graph>(graph, "graph", [&](Graph& read) {
        return read.node_param_info(index, param_index, out_offset, out_size);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_update_kernel_args(cuabi_graph* graph, size_t index, const cuabi_kernel_arg* args,
                                                      size_t arg_count) try {
    return with_pinned<Graph>(graph, "graph",
                              [&](Graph& updated) { return updated.update_kernel_args(index, args, arg_count); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_update_kernel_args_packed(cuabi_graph* graph, size_t index, const void* packed,
                                                             size_t packed_size) try {
    return with_pinned<Graph>(graph, "graph", [&](Graph& updated) {
        return updated.update_kernel_args_packed(index, packed, packed_size);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_update_kernel_geometry(cuabi_graph* graph, size_t index, const uint32_t* grid,
                                                          const uint32_t* block, uint32_t shared_memory_bytes) try {
    Status status = require_pointer(grid, "grid");
    if (status == CUABI_SUCCESS) status = require_pointer(block, "block");
    if (status != CUABI_SUCCESS) return status;
    return with_pinned<Graph>(graph, "graph", [&](Graph& updated) {
        return updated.update_kernel_geometry(index, grid, block, shared_memory_bytes);
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_update_memset_value(cuabi_graph* graph, size_t index, uint32_t value) try {
    return with_pinned<Graph>(graph, "graph",
                              [&](Graph& updated) { return updated.update_memset_value(index, value); });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API uint64_t cuabi_graph_cache_get_capacity_class(uint64_t size) try {
    return graph::capacity_class(size);
} catch (...) {
    guard::swallowed();
    return 0;
}

CUABI_API cuabi_status cuabi_graph_cache_lookup(cuabi_context* context, const void* key, size_t key_size, uint64_t size,
                                                cuabi_graph** out_graph) try {
    Status status = require_pointer(out_graph, "out_graph");
    if (status == CUABI_SUCCESS) status = require_key(key, key_size);
    if (status != CUABI_SUCCESS) return status;
    Pinned<Context> pinned(context, "context");
    if (!pinned.ok()) return refused_handle();
    std::shared_ptr<Object> found = graph::GraphCache::instance().lookup(pinned.get(), key, key_size, size);
    if (!found)
        return fail(CUABI_ERROR_NOT_FOUND, "capture the graph and add it with cuabi_graph_cache_insert",
                    "no cached graph for this %zu-byte key in capacity class %llu (size %llu) of the context",
                    key_size, static_cast<unsigned long long>(graph::capacity_class(size)),
                    static_cast<unsigned long long>(size));
    return publish(std::static_pointer_cast<Graph>(std::move(found)), out_graph);
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_cache_insert(cuabi_context* context, const void* key, size_t key_size, uint64_t size,
                                                cuabi_graph* graph) try {
    Status status = require_key(key, key_size);
    if (status != CUABI_SUCCESS) return status;
    std::shared_ptr<Context> scope = acquire<Context>(context, "context");
    if (!scope) return refused_handle();
    std::shared_ptr<Graph> value = acquire<Graph>(graph, "graph");
    if (!value) return refused_handle();
    if (value->context().cu_context() != scope->cu_context())
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "insert the graph under the context it was captured in",
                    "the graph belongs to device %d but the context is on device %d", value->context().ordinal(),
                    scope->ordinal());
    return graph::GraphCache::instance().insert(std::move(scope), key, key_size, size, std::move(value));
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API void cuabi_graph_cache_set_capacity(size_t max_entries) try {
    if (fork_state::forked_child()) return;  // its lock may be held by a thread that did not survive fork()
    graph::GraphCache::instance().set_capacity(max_entries);
} catch (...) {
    guard::swallowed();
}

CUABI_API cuabi_status cuabi_graph_cache_clear(cuabi_context* context) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (context == nullptr) {
        graph::GraphCache::instance().clear(nullptr);
        return CUABI_SUCCESS;
    }
    return with_pinned<Context>(context, "context", [](Context& scope) {
        graph::GraphCache::instance().clear(&scope);
        return CUABI_SUCCESS;
    });
} catch (...) {
    return guard::failed(__func__);
}

CUABI_API cuabi_status cuabi_graph_cache_get_stats(cuabi_graph_cache_stats* out_stats) try {
    if (Status forked = fork_state::enter(__func__)) return forked;
    if (Status status = require_output(out_stats, "out_stats")) return status;
    graph::CacheStats read = graph::GraphCache::instance().stats();
    cuabi_graph_cache_stats out CUABI_GRAPH_CACHE_STATS_INIT;
    out.entries = read.entries;
    out.capacity = read.capacity;
    out.hits = read.hits;
    out.misses = read.misses;
    out.insertions = read.insertions;
    out.evictions = read.evictions;
    return write_output(out, out_stats);
} catch (...) {
    return guard::failed(__func__);
}

}  // extern "C"
