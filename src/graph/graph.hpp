// A cuabi graph: a captured CUgraph together with its instantiated CUgraphExec, the node records
// that describe both (graph/nodes.hpp), and the context that keeps them valid.
//
// One graph object may sit behind several handles (the graph cache hands out new handles to the
// same object), and CUDA requires that an executable graph is not used from two threads at once,
// so every operation takes the graph's own guard (graph/exclusive.hpp: one atomic exchange to take,
// one store to release). It is uncontended unless the caller really uses one graph from several
// threads at the same moment; replay and argument updates allocate nothing.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/handle_table.hpp"
#include "device/buffer.hpp"
#include "device/context.hpp"
#include "device/stream.hpp"
#include "graph/exclusive.hpp"
#include "graph/nodes.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace graph {

// Why a whole-graph update could not update the executable in place.
struct UpdateOutcome {
    bool reinstantiated = false;
    int32_t driver_result = 0;            // CUgraphExecUpdateResult
    uint64_t error_node = UINT64_MAX;     // index in the new capture, UINT64_MAX for none
    std::string reason;                   // empty when updated in place
};

// What the inventory says of one node: the fields of cuabi_graph_node_info (src/api/ copies them
// out; `kernel` is the public handle the graph holds for the node's cuabi kernel, 0 for none).
struct NodeInfo {
    int32_t kind = 0;  // CUABI_GRAPH_NODE_*
    uint64_t kernel = 0;
    uint32_t grid[3] = {};
    uint32_t block[3] = {};
    uint32_t shared_memory_bytes = 0;
    uint32_t param_count = 0;
    uint64_t param_bytes = 0;
    uint32_t memset_value = 0;
    uint32_t memset_element_size = 0;
    ConditionalNode conditional;
};

// One end of a memcpy node update: a range of a device buffer, or host memory.
struct MemcpyEnd {
    std::shared_ptr<const Buffer> buffer;  // null for host memory
    void* host = nullptr;                  // host memory; null for a buffer
    uint64_t offset = 0;                   // bytes into the buffer
};

// Aligned so that what replay reads (the first members) shares one cache line.
class alignas(64) Graph final : public Object {
public:
    static constexpr HandleType kHandleType = HandleType::Graph;

    // Instantiates `captured` (ownership passes to the graph, which destroys it on failure too)
    // with CUABI_GRAPH_* `flags`; with CUABI_GRAPH_UPLOAD also uploads it on `stream`.
    static Status create(std::shared_ptr<Context> context, CUgraph captured, uint32_t flags, const Stream& stream,
                         std::shared_ptr<Graph>* out);
    ~Graph() override;

    // Replay and upload on any stream of the graph's CUDA context (CONTEXT_MISMATCH otherwise).
    Status launch(const Stream& stream);
    Status upload(const Stream& stream);
    // The same for a NULL stream: on the calling thread's per-thread stream, then a wait.
    Status launch_synchronously();
    Status upload_synchronously();

    // Inventory (graph/inventory.cpp). Node indices follow the order of graph/nodes.hpp.
    size_t node_count();
    Status node_info(size_t index, NodeInfo* out);
    Status node_kernel_name(size_t index, std::string* out);
    Status node_param_info(size_t index, size_t param, size_t* out_offset, size_t* out_size);

    // Updates of the executable (graph/node_update.cpp), validated like a launch.
    Status update_kernel_args(size_t index, const cuabi_kernel_arg* args, size_t count);
    Status update_kernel_args_packed(size_t index, const void* packed, size_t packed_size);
    Status update_kernel_geometry(size_t index, const uint32_t grid[3], const uint32_t block[3], uint32_t shared_bytes);
    Status update_memset_value(size_t index, uint32_t value);
    // Node control (graph/node_control.cpp): memcpy end points, turning nodes off and on, DOT text.
    Status update_memcpy(size_t index, MemcpyEnd dst, MemcpyEnd src, uint64_t size);
    Status set_node_enabled(size_t index, bool enabled);
    Status node_enabled(size_t index, bool* out_enabled);
    // DOT text of the captured graph into `path` (a file the driver opens); `verbose` for every parameter.
    Status write_dot(const char* path, bool verbose);
    // The same text in memory: the driver writes to an anonymous in-memory file, never to disk.
    Status dot_text(bool verbose, std::string* out);

    // Whole-graph update from a new capture (graph/exec_update.cpp); takes ownership of
    // `captured`. With `allow_reinstantiate` false, a graph that cannot be updated in place is
    // left as it was and GRAPH_UPDATE returned.
    Status update_from(CUgraph captured, bool allow_reinstantiate, UpdateOutcome* out);

    // Keeps `buffer`'s memory alive for the graph's life (CONTEXT_MISMATCH for another context's):
    // for buffers its kernels reach through arguments. Those of captured cuabi transfers are kept
    // by the captured CUgraph itself (graph/retention.hpp).
    Status retain_buffer(std::shared_ptr<const Buffer> buffer);

    const Context& context() const { return *context_; }
    CUgraphExec native_exec();
    CUgraph native_graph();

private:
    Graph(std::shared_ptr<Context> context, uint32_t flags)
        : cu_context_(context->cu_context()),
          graph_launch_(context->api().cuGraphLaunch),
          counters_(&context->counters()),
          profiled_(range::tool_attached()),
          context_(std::move(context)),
          flags_(flags) {}

    Status instantiate(CUgraph graph, CUgraphExec* out) const;
    // Takes `nodes` as the graph's records and keeps one borrowed public handle per cuabi kernel
    // they launch (reusing the handles of kernels the graph already launched).
    void adopt(std::vector<Node> nodes);
    void release_kernel_handles();
    // The node at `index` if it exists and is of `kind` (OUT_OF_BOUNDS / GRAPH_NODE otherwise).
    Status node_of_kind(size_t index, int32_t kind, const char* operation, Node** out);
    Status stream_check(const Stream& stream, const char* operation) const;
    // After a refused replay: makes the context current and tries once more, else reports.
    Status launch_again_or_fail(const Stream& stream, CUresult result);
    Status replay(const Stream& stream);
    Status submit_synchronously(bool upload);
    CUresult submit(const Stream& stream);  // cuGraphLaunch under the guard
    // Node updates: the kernel node at `index` with a shadow copy to rebuild its parameters from.
    Status updatable_kernel(size_t index, const char* operation, KernelNode** out);
    // Hands `params` to the executable for the node at `index`; on success they become the node's.
    Status set_kernel_params(size_t index, const CUDA_KERNEL_NODE_PARAMS& params, const char* what);
    Status publish_spare_arguments(size_t index, KernelNode* kernel);
    // Keeps the live cuabi buffers that new pointer-sized arguments point into (the guard held), as
    // a capture keeps those of captured launches (launch/capture_retention.hpp). Allocates only
    // for a buffer the graph does not hold yet.
    void retain_reached_buffers(const launch::ParamLayout& layout, const cuabi_kernel_arg* table, size_t count,
                                const void* packed);
    // Whether `address` lies in a buffer an earlier update found in the directory and the graph
    // keeps since (owned memory, which cuabi cannot free while the graph holds it).
    bool reaches_kept_buffer(uint64_t address) const;

    // What replay reads, first and together: the guard, the executable and copies of what it needs
    // from the context and the driver, so that it follows no pointers there.
    Exclusive exclusive_;
    CUgraphExec exec_ = nullptr;
    const CUcontext cu_context_;
    const decltype(DriverApi::cuGraphLaunch) graph_launch_;
    Counters* const counters_;
    // Whether replays open their profiler range: a tool attaches at the process's first range or
    // never (range/nvtx_state.hpp), so the answer at creation holds for the graph's life.
    const bool profiled_;

    std::shared_ptr<Context> context_;
    const uint32_t flags_;
    CUgraph graph_ = nullptr;
    // The capture the executable was last updated from in place (update_from). Kept, because the
    // buffers its transfers touch are retained by it (graph/retention.hpp) and the executable now
    // uses them; replaced by the next update.
    CUgraph update_source_ = nullptr;
    std::vector<Node> nodes_;
    // Public handles of the cuabi kernels in the graph, one per kernel, handed out by the
    // inventory and destroyed with the graph (or when a rebuild replaces the nodes).
    std::vector<std::pair<const Kernel*, uint64_t>> kernel_handles_;
    // Buffers the caller asked the graph to keep alive (cuabi_graph_retain_buffer).
    std::vector<std::shared_ptr<const Buffer>> retained_buffers_;
    // The bytes of the buffers argument updates found in the directory (all in retained_buffers_):
    // an update that passes them again asks the directory nothing (retain_reached_buffers).
    struct AddressRange {
        uint64_t address;
        uint64_t size;
    };
    std::vector<AddressRange> updated_ranges_;
};

}  // namespace graph
}  // namespace cuabi
