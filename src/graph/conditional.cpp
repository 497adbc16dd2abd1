#include "graph/conditional.hpp"

#include <new>
#include <string>
#include <utility>
#include <vector>

#include "graph/capture.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/node_kind.hpp"
#include "graph/owned_captures.hpp"

namespace cuabi {
namespace graph {
namespace {

const char* const kFixStream = "check that the stream is usable (cuabi_stream_query)";

// The capture `stream` is in: its id, the graph it captures into and the nodes the next one follows.
struct Current {
    cuuint64_t id = 0;
    CUgraph graph = nullptr;
    std::vector<CUgraphNode> after;
};

Status current_capture(const Stream& stream, const char* operation, Current* out) {
    const Context& context = stream.context();
    Status status = context.make_current();
    if (status != CUABI_SUCCESS) return status;
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    const CUgraphNode* after = nullptr;
    size_t after_count = 0;
    CUresult result = context.api().cuStreamGetCaptureInfo(stream.cu_stream(), &capturing, &out->id, &out->graph,
                                                           &after, nullptr, &after_count);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuStreamGetCaptureInfo", kFixStream, "on device %d", context.ordinal());
    if (capturing == CU_STREAM_CAPTURE_STATUS_NONE)
        return fail(CUABI_ERROR_CAPTURE, "call cuabi_graph_capture_begin on the stream first",
                    "cannot %s: the stream on device %d is not capturing", operation, context.ordinal());
    if (capturing != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return fail(CUABI_ERROR_CAPTURE, "avoid calls that are unsafe during capture, then capture again",
                    "cannot %s: the capture on device %d was invalidated by an operation not allowed while capturing",
                    operation, context.ordinal());
    if (!owned().contains(out->id))
        return fail(CUABI_ERROR_CAPTURE, "begin the capture with cuabi_graph_capture_begin",
                    "cannot %s: the stream on device %d is capturing a graph that other code began; cuabi adds "
                    "conditional nodes only to its own captures",
                    operation, context.ordinal());
    out->after.assign(after, after + after_count);
    return CUABI_SUCCESS;
}

Status require_driver(const Stream& stream, int32_t type, uint32_t body_count) {
    const DriverApi& api = stream.context().api();
    const bool entry_points = api.cuGraphConditionalHandleCreate != nullptr && api.cuGraphAddNode != nullptr &&
                              api.cuStreamBeginCaptureToGraph != nullptr;
    return check_conditional_driver(api.version, entry_points, type, body_count);
}

// A failure after cuabi ended the stream's capture: the root goes, and the message says so.
Status abandon(const CaptureRecord& record, const DriverApi& api, Status status) {
    discard_root(record, api);
    try {
        return fail_again(status, discarded_capture_message(last_error_message(), CaptureFate::Ended), last_cu_result());
    } catch (const std::bad_alloc&) {
        return status;
    }
}

// Ends the stream's capture so that it can capture into another graph. From here on cuabi holds
// the root. On WRONG_THREAD the capture goes on (the record back in place); on any other failure
// it is over and discarded.
Status end_for_move(const Stream& stream, const Current& current, CaptureRecord* record) {
    const DriverApi& api = stream.context().api();
    CUgraph ended = nullptr;
    CUresult result = api.cuStreamEndCapture(stream.cu_stream(), &ended);
    if (result == CUDA_SUCCESS && ended != nullptr) {
        if (record->root == nullptr) record->root = ended;
        return CUABI_SUCCESS;
    }
    if (result == CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD) {
        owned().put(current.id, std::move(*record));
        return fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                                   "capture conditional nodes on the thread that began a global or thread-local "
                                   "capture, or begin it with CUABI_CAPTURE_MODE_RELAXED",
                                   "the capture on device %d was begun on another thread; it still captures",
                                   stream.context().ordinal());
    }
    if (ended != nullptr && ended != record->root) destroy_graph(api, ended);
    fail_with_cu_result(CUABI_ERROR_CAPTURE, result,
                        "avoid calls that are unsafe during capture, and join every stream the capture forked into "
                        "before opening or closing a conditional body",
                        "the capture on device %d could not be ended to move into a conditional body: %s",
                        stream.context().ordinal(), cu_result_text(result).c_str());
    return abandon(*record, api, CUABI_ERROR_CAPTURE);
}

// Makes the stream capture into `graph` after `after` and files the record under the new capture.
Status capture_into(const Stream& stream, CaptureRecord record, CUgraph graph, const CUgraphNode* after,
                    size_t after_count) {
    const DriverApi& api = stream.context().api();
    const int device = stream.context().ordinal();
    CUresult result =
        api.cuStreamBeginCaptureToGraph(stream.cu_stream(), graph, after, nullptr, after_count, record.mode);
    if (result != CUDA_SUCCESS) {
        fail_cu(result, "cuStreamBeginCaptureToGraph", kFixStream, "on device %d", device);
        return abandon(record, api, CUABI_ERROR_CAPTURE);
    }
    CUstreamCaptureStatus capturing = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t id = 0;
    result = api.cuStreamGetCaptureInfo(stream.cu_stream(), &capturing, &id, nullptr, nullptr, nullptr, nullptr);
    if (result != CUDA_SUCCESS) {
        CUgraph ended = nullptr;
        api.cuStreamEndCapture(stream.cu_stream(), &ended);  // a body or the root: held by the record
        fail_cu(result, "cuStreamGetCaptureInfo", kFixStream, "on device %d", device);
        return abandon(record, api, CUABI_ERROR_CAPTURE);
    }
    owned().put(id, std::move(record));
    return CUABI_SUCCESS;
}

// Where the stream captures now, for messages.
std::string capture_place(const CaptureRecord& record) {
    if (record.open.empty()) return "the graph the capture began with";
    const OpenConditional& level = record.open.back();
    return format("body %u of the %s node at depth %zu", level.body, conditional_type_name(level.type),
                  record.open.size());
}

Status check_condition(const Stream& stream, const CaptureRecord& record, CUgraph graph, uint64_t condition) {
    bool known = false;
    for (const auto& made : record.conditions) {
        if (made.second != condition) continue;
        if (made.first == graph) return CUABI_SUCCESS;
        known = true;
    }
    const std::string place = capture_place(record);
    if (known)
        return fail(CUABI_ERROR_INVALID_ARGUMENT,
                    "create the condition (cuabi_graph_condition_create) while the stream captures the graph the "
                    "node goes into",
                    "condition 0x%llx was made for another graph of this capture, not for %s (device %d)",
                    static_cast<unsigned long long>(condition), place.c_str(), stream.context().ordinal());
    return fail(CUABI_ERROR_INVALID_ARGUMENT,
                "pass a value cuabi_graph_condition_create returned in this capture, for the graph the node goes into",
                "condition 0x%llx was not made by cuabi_graph_condition_create in the capture on device %d (which "
                "captures %s now)",
                static_cast<unsigned long long>(condition), stream.context().ordinal(), place.c_str());
}

CUgraphConditionalNodeType driver_type(int32_t type) {
    switch (type) {
        case CUABI_GRAPH_CONDITIONAL_IF: return CU_GRAPH_COND_TYPE_IF;
#if CUDA_VERSION >= 12080
        case CUABI_GRAPH_CONDITIONAL_SWITCH: return CU_GRAPH_COND_TYPE_SWITCH;
#endif
        default: return CU_GRAPH_COND_TYPE_WHILE;
    }
}

// Takes the record of the capture the stream is in, or says what is not open.
Status take_open_body(const Current& current, const char* operation, int device, CaptureRecord* record) {
    owned().take(current.id, record);
    if (!record->open.empty()) return CUABI_SUCCESS;
    owned().put(current.id, std::move(*record));
    return fail(CUABI_ERROR_CAPTURE, "open a conditional node first (cuabi_graph_capture_conditional_begin)",
                "cannot %s: the stream on device %d captures no conditional body", operation, device);
}

}  // namespace

Status check_conditional_shape(int32_t type, uint32_t body_count) {
    const char* const fix =
        "pass CUABI_GRAPH_CONDITIONAL_WHILE with 1 body, CUABI_GRAPH_CONDITIONAL_IF with 1 or 2, or "
        "CUABI_GRAPH_CONDITIONAL_SWITCH with 1 or more";
    switch (type) {
        case CUABI_GRAPH_CONDITIONAL_WHILE:
            if (body_count == 1) return CUABI_SUCCESS;
            break;
        case CUABI_GRAPH_CONDITIONAL_IF:
            if (body_count == 1 || body_count == 2) return CUABI_SUCCESS;
            break;
        case CUABI_GRAPH_CONDITIONAL_SWITCH:
            if (body_count >= 1) return CUABI_SUCCESS;
            break;
        default:
            return fail(CUABI_ERROR_INVALID_ARGUMENT, fix, "conditional type %d is not a CUABI_GRAPH_CONDITIONAL_* type",
                        type);
    }
    return fail(CUABI_ERROR_INVALID_ARGUMENT, fix, "%s %s node cannot have %u bodies",
                type == CUABI_GRAPH_CONDITIONAL_IF ? "an" : "a", conditional_type_name(type), body_count);
}

Status check_conditional_driver(int driver_version, bool entry_points, int32_t type, uint32_t body_count) {
    const int major = driver_version / 1000, minor = (driver_version % 1000) / 10;
    if (!entry_points || driver_version < 12030)
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.3 or newer (R545+)",
                    "conditional graph nodes need a CUDA 12.3 driver; the installed driver is CUDA %d.%d%s", major,
                    minor, entry_points ? "" : " and lacks cuGraphConditionalHandleCreate");
    const bool newer = type == CUABI_GRAPH_CONDITIONAL_SWITCH || (type == CUABI_GRAPH_CONDITIONAL_IF && body_count == 2);
    const char* what = type == CUABI_GRAPH_CONDITIONAL_SWITCH ? "switch nodes" : "if nodes with an else body";
    if (newer && CUDA_VERSION < 12080)
        return fail(CUABI_ERROR_UNSUPPORTED, "use a cuabi built with the CUDA 12.8 toolkit or newer",
                    "%s need CUDA 12.8; this cuabi was built with CUDA %d.%d headers", what, CUDA_VERSION / 1000,
                    (CUDA_VERSION % 1000) / 10);
    if (newer && driver_version < 12080)
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.8 or newer (R570+)",
                    "%s need a CUDA 12.8 driver; the installed driver is CUDA %d.%d", what, major, minor);
    return CUABI_SUCCESS;
}

Status create_condition(const Stream& stream, uint32_t default_value, uint32_t flags, uint64_t* out_condition) {
    Status status = require_driver(stream, CUABI_GRAPH_CONDITIONAL_WHILE, 1);
    Current current;
    if (status == CUABI_SUCCESS) status = current_capture(stream, "create a condition", &current);
    if (status != CUABI_SUCCESS) return status;
    const Context& context = stream.context();
    CUgraphConditionalHandle condition = 0;
    const unsigned cu_flags = (flags & CUABI_GRAPH_CONDITION_ASSIGN_DEFAULT) != 0 ? CU_GRAPH_COND_ASSIGN_DEFAULT : 0;
    CUresult result = context.api().cuGraphConditionalHandleCreate(&condition, current.graph, context.cu_context(),
                                                                   default_value, cu_flags);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphConditionalHandleCreate", "free device memory, or capture again",
                       "with default value %u on device %d", default_value, context.ordinal());
    CaptureRecord record;
    owned().take(current.id, &record);
    try {
        record.conditions.emplace_back(current.graph, condition);
    } catch (const std::bad_alloc&) {
        owned().put(current.id, std::move(record));
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not remember a new condition");
    }
    owned().put(current.id, std::move(record));
    *out_condition = condition;
    return CUABI_SUCCESS;
}

Status begin_conditional(const Stream& stream, uint64_t condition, int32_t type, uint32_t body_count) {
    Status status = require_driver(stream, type, body_count);
    Current current;
    if (status == CUABI_SUCCESS) status = current_capture(stream, "open a conditional node", &current);
    if (status != CUABI_SUCCESS) return status;
    CaptureRecord record;
    owned().take(current.id, &record);
    if ((status = check_condition(stream, record, current.graph, condition)) != CUABI_SUCCESS) {
        owned().put(current.id, std::move(record));
        return status;
    }
    if ((status = end_for_move(stream, current, &record)) != CUABI_SUCCESS) return status;

    const Context& context = stream.context();
    CUgraphNodeParams params{};
    params.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    params.conditional.handle = condition;
    params.conditional.type = driver_type(type);
    params.conditional.size = body_count;
    params.conditional.ctx = context.cu_context();
    CUgraphNode node = nullptr;
    CUresult result = context.api().cuGraphAddNode(&node, current.graph, current.after.data(), nullptr,
                                                   current.after.size(), &params);
    if (result != CUDA_SUCCESS) {
        fail_cu(result, "cuGraphAddNode", "keep conditional bodies to kernels, transfers, fills and conditionals",
                "adding a %s node with %u bodies to %s on device %d", conditional_type_name(type), body_count,
                capture_place(record).c_str(), context.ordinal());
        return abandon(record, context.api(), CUABI_ERROR_CAPTURE);
    }
    CUgraph first_body = params.conditional.phGraph_out[0];
    try {
        OpenConditional level;
        level.graph = current.graph;
        level.node = node;
        level.type = type;
        level.bodies.assign(params.conditional.phGraph_out, params.conditional.phGraph_out + body_count);
        ConditionalFacts facts;
        facts.type = type;
        facts.condition = condition;
        facts.bodies = level.bodies;
        remember_conditional(record.root, node, std::move(facts));
        record.open.push_back(std::move(level));
    } catch (const std::bad_alloc&) {
        fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not record a new conditional node");
        return abandon(record, context.api(), CUABI_ERROR_OUT_OF_HOST_MEMORY);
    }
    return capture_into(stream, std::move(record), first_body, nullptr, 0);
}

Status next_conditional_body(const Stream& stream) {
    Current current;
    Status status = current_capture(stream, "move to the next conditional body", &current);
    if (status != CUABI_SUCCESS) return status;
    const int device = stream.context().ordinal();
    CaptureRecord record;
    if ((status = take_open_body(current, "move to the next conditional body", device, &record)) != CUABI_SUCCESS)
        return status;
    OpenConditional& level = record.open.back();
    if (level.body + 1 >= level.bodies.size()) {
        const uint32_t count = static_cast<uint32_t>(level.bodies.size());
        const char* type = conditional_type_name(level.type);
        owned().put(current.id, std::move(record));
        return fail(CUABI_ERROR_OUT_OF_BOUNDS, "close the node with cuabi_graph_capture_conditional_end",
                    "the %s node on device %d has %u bodies and body %u, the last, is being captured", type, device,
                    count, count - 1);
    }
    if ((status = end_for_move(stream, current, &record)) != CUABI_SUCCESS) return status;
    CUgraph body = record.open.back().bodies[++record.open.back().body];
    return capture_into(stream, std::move(record), body, nullptr, 0);
}

Status end_conditional(const Stream& stream) {
    Current current;
    Status status = current_capture(stream, "close a conditional node", &current);
    if (status != CUABI_SUCCESS) return status;
    CaptureRecord record;
    if ((status = take_open_body(current, "close a conditional node", stream.context().ordinal(), &record)) !=
        CUABI_SUCCESS)
        return status;
    if ((status = end_for_move(stream, current, &record)) != CUABI_SUCCESS) return status;
    const CUgraph around = record.open.back().graph;
    const CUgraphNode node = record.open.back().node;
    record.open.pop_back();
    return capture_into(stream, std::move(record), around, &node, 1);
}

}  // namespace graph
}  // namespace cuabi
