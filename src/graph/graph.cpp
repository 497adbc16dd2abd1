#include "graph/graph.hpp"

#include <new>

#include "core/deferred_release.hpp"
#include "graph/capture.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/memory_nodes.hpp"
#include "graph/node_kind.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace graph {
namespace {

unsigned long long instantiate_flags(uint32_t flags) {
    unsigned long long cu_flags = 0;
    if ((flags & CUABI_GRAPH_AUTO_FREE_ON_LAUNCH) != 0) cu_flags |= CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH;
    if ((flags & CUABI_GRAPH_USE_NODE_PRIORITY) != 0) cu_flags |= CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY;
    return cu_flags;
}

}  // namespace

Status Graph::create(std::shared_ptr<Context> context, CUgraph captured, uint32_t flags, const Stream& stream,
                     std::shared_ptr<Graph>* out) {
    const DriverApi& api = context->api();
    std::shared_ptr<Graph> graph(new (std::nothrow) Graph(context, flags));
    if (!graph) {
        destroy_graph(api, captured);
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate a graph object");
    }
    graph->graph_ = captured;  // from here on the graph object owns (and destroys) it
    Status status = context->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::vector<Node> nodes;
    if ((status = read_nodes(context, captured, &nodes)) != CUABI_SUCCESS) return status;
    if ((status = graph->instantiate(captured, &graph->exec_)) != CUABI_SUCCESS) return status;
    graph->adopt(std::move(nodes));
    if ((flags & CUABI_GRAPH_UPLOAD) != 0 && (status = graph->upload(stream)) != CUABI_SUCCESS) return status;
    *out = std::move(graph);
    return CUABI_SUCCESS;
}

Graph::~Graph() {
    // Destroying handles must not disturb the thread's last error (a destroy reports nothing).
    PreserveLastError keep;
    release_kernel_handles();
    if (context_->make_current() == CUABI_SUCCESS) {
        // An executable still running on the GPU is freed by the driver when it completes.
        if (exec_ != nullptr) context_->api().cuGraphExecDestroy(exec_);
        if (graph_ != nullptr) destroy_graph(context_->api(), graph_);
        if (update_source_ != nullptr) destroy_graph(context_->api(), update_source_);
    }
    // The buffers the graphs retained come back once no executable in flight needs them.
    DeferredRelease::release_queued();
}

Status Graph::instantiate(CUgraph graph, CUgraphExec* out) const {
    range::Scope scope(range::Phase::GraphInstantiate);
    CUgraphExec exec = nullptr;
    CUresult result = context_->api().cuGraphInstantiateWithFlags(&exec, graph, instantiate_flags(flags_));
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphInstantiateWithFlags",
                       "check the captured work: every kernel node must be launchable as captured, and memory "
                       "allocated in the graph needs CUABI_GRAPH_AUTO_FREE_ON_LAUNCH or a matching free",
                       "on device %d", context_->ordinal());
    Counters::bump(context_->counters().graph_instantiations);
    *out = exec;
    return CUABI_SUCCESS;
}

void Graph::adopt(std::vector<Node> nodes) {
    nodes_ = std::move(nodes);
    // Kernels the graph still launches keep the handle the inventory already gave out; handles of
    // kernels it no longer launches are released, new kernels get one.
    std::vector<std::pair<const Kernel*, uint64_t>> previous;
    previous.swap(kernel_handles_);
    for (const Node& node : nodes_) {
        if (!node.kernel || !node.kernel->from_cuabi) continue;
        const Kernel* kernel = node.kernel->kernel.get();
        bool known = false;
        for (const auto& entry : kernel_handles_) known = known || entry.first == kernel;
        if (known) continue;
        uint64_t handle = 0;
        for (auto& entry : previous)
            if (entry.first == kernel) std::swap(handle, entry.second);
        // A handle that cannot be published (table full, no memory) leaves the inventory's kernel
        // field NULL for this kernel; the graph itself is unaffected.
        cuabi_kernel* published = nullptr;
        if (handle == 0 && publish(node.kernel->kernel, &published) == CUABI_SUCCESS)
            handle = reinterpret_cast<uint64_t>(published);
        if (handle == 0) continue;
        try {
            kernel_handles_.emplace_back(kernel, handle);
        } catch (const std::bad_alloc&) {
            destroy_handle<Kernel>(reinterpret_cast<void*>(handle));
        }
    }
    for (const auto& entry : previous)
        if (entry.second != 0) destroy_handle<Kernel>(reinterpret_cast<void*>(entry.second));
}

void Graph::release_kernel_handles() {
    for (const auto& entry : kernel_handles_) destroy_handle<Kernel>(reinterpret_cast<void*>(entry.second));
    kernel_handles_.clear();
}

Status Graph::stream_check(const Stream& stream, const char* operation) const {
    if (stream.cu_context() == cu_context_) return CUABI_SUCCESS;
    return fail(CUABI_ERROR_CONTEXT_MISMATCH, "use a stream of the context the graph was captured in",
                "cannot %s the graph on a stream of device %d (CUDA context %p): the graph was captured in CUDA "
                "context %p of device %d",
                operation, stream.context().ordinal(), static_cast<void*>(stream.context().cu_context()),
                static_cast<void*>(context_->cu_context()), context_->ordinal());
}

// Replay does not make the graph's context current: the driver takes the context from the stream
// (verified on an H100 with driver 580, with another context or none current), so asking which
// context is current would cost a driver call for nothing. Should a driver still refuse, the
// context is made current and the launch tried once more before the failure is reported.
Status Graph::replay(const Stream& stream) {
    if (stream.cu_context() != cu_context_) return stream_check(stream, "launch");
    CUresult result = submit(stream);
    if (result != CUDA_SUCCESS) return launch_again_or_fail(stream, result);
    Counters::bump(counters_->graph_launches);
    return CUABI_SUCCESS;
}

CUresult Graph::submit(const Stream& stream) {
    std::lock_guard<Exclusive> lock(exclusive_);
    return graph_launch_(exec_, stream.cu_stream());
}

Status Graph::launch(const Stream& stream) {
    if (!profiled_) return replay(stream);
    range::Scope scope(range::Phase::GraphLaunch);
    return replay(stream);
}

// Out of line and cold, so that replay's instructions stay together: the second try with the
// context current, then the report.
[[gnu::cold, gnu::noinline]] Status Graph::launch_again_or_fail(const Stream& stream, CUresult result) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    if ((result = submit(stream)) == CUDA_SUCCESS) {
        Counters::bump(counters_->graph_launches);
        return CUABI_SUCCESS;
    }
    if (Status refused = unfreed_allocation_refusal(result, nodes_, flags_, context_->ordinal()))
        return end_capture_after_failure(&stream, refused);
    fail_cu(result, "cuGraphLaunch",
            "if the error is sticky (CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED) an earlier kernel "
            "faulted and the context must be recreated; otherwise check the stream",
            "for a graph of %zu nodes on device %d", node_count(), context_->ordinal());
    return end_capture_after_failure(&stream, CUABI_ERROR_LAUNCH_FAILED);
}

Status Graph::upload(const Stream& stream) {
    range::Scope scope(range::Phase::GraphUpload);
    Status status = stream_check(stream, "upload");
    if (status != CUABI_SUCCESS) return status;
    if ((status = context_->make_current()) != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    CUresult result = context_->api().cuGraphUpload(exec_, stream.cu_stream());
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphUpload", "check that the device has memory for the graph's launch resources",
                       "for a graph of %zu nodes on device %d", nodes_.size(), context_->ordinal());
    return CUABI_SUCCESS;
}

Status Graph::retain_buffer(std::shared_ptr<const Buffer> buffer) {
    if (buffer->context().cu_context() != cu_context_)
        return fail(CUABI_ERROR_CONTEXT_MISMATCH, "retain buffers of the context the graph was captured in",
                    "the buffer belongs to device %d but the graph to device %d", buffer->context().ordinal(),
                    context_->ordinal());
    std::lock_guard<Exclusive> lock(exclusive_);
    for (const auto& held : retained_buffers_)
        if (held == buffer) return CUABI_SUCCESS;
    retained_buffers_.push_back(std::move(buffer));
    return CUABI_SUCCESS;
}

Status Graph::launch_synchronously() {
    range::Scope scope(range::Phase::GraphLaunch);
    return submit_synchronously(false);
}

Status Graph::upload_synchronously() {
    range::Scope scope(range::Phase::GraphUpload);
    return submit_synchronously(true);
}

Status Graph::submit_synchronously(bool upload) {
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    CUresult result;
    {
        std::lock_guard<Exclusive> lock(exclusive_);
        result = upload ? context_->api().cuGraphUpload(exec_, CU_STREAM_PER_THREAD)
                        : graph_launch_(exec_, CU_STREAM_PER_THREAD);
    }
    const char* operation = upload ? "cuGraphUpload" : "cuGraphLaunch";
    if (result != CUDA_SUCCESS && !upload)
        if (Status refused = unfreed_allocation_refusal(result, nodes_, flags_, context_->ordinal())) return refused;
    if (result != CUDA_SUCCESS)
        return fail_cu(result, operation,
                       "if the error is sticky (CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED) an earlier "
                       "kernel faulted and the context must be recreated",
                       "(per-thread stream) for a graph of %zu nodes on device %d", nodes_.size(),
                       context_->ordinal());
    if (!upload) Counters::bump(counters_->graph_launches);
    return complete_if_synchronous(*context_, nullptr, operation);
}

Status Graph::node_of_kind(size_t index, int32_t kind, const char* operation, Node** out) {
    if (index >= nodes_.size())
        return fail(CUABI_ERROR_GRAPH_NODE, "pass a node index below cuabi_graph_get_node_count()",
                    "cannot %s node %zu: the graph has %zu nodes", operation, index, nodes_.size());
    Node& node = nodes_[index];
    if (kind >= 0 && node.kind != kind)
        return fail(CUABI_ERROR_GRAPH_NODE,
                    "pick the node by its kind in the inventory (cuabi_graph_get_node_info)",
                    "cannot %s node %zu: it is a %s node, not a %s node", operation, index, node_kind_name(node.kind),
                    node_kind_name(kind));
    *out = &node;
    return CUABI_SUCCESS;
}

CUgraphExec Graph::native_exec() {
    std::lock_guard<Exclusive> lock(exclusive_);
    return exec_;
}

CUgraph Graph::native_graph() {
    std::lock_guard<Exclusive> lock(exclusive_);
    return graph_;
}

}  // namespace graph
}  // namespace cuabi
