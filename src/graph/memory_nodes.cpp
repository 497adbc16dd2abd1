#include "graph/memory_nodes.hpp"

#include "driver/driver_api.hpp"

namespace cuabi {
namespace graph {

Status unfreed_allocation_refusal(CUresult result, const std::vector<Node>& nodes, uint32_t flags, int32_t ordinal) {
    if (result != CUDA_ERROR_INVALID_VALUE || (flags & CUABI_GRAPH_AUTO_FREE_ON_LAUNCH) != 0) return CUABI_SUCCESS;
    size_t allocations = 0;
    for (const Node& node : nodes) allocations += node.kind == CUABI_GRAPH_NODE_MEM_ALLOC ? 1 : 0;
    if (allocations == 0) return CUABI_SUCCESS;
    return fail_with_cu_result(
        CUABI_ERROR_GRAPH_MEMORY, result,
        "free the buffers the graph allocated (cuabi_buffer_free_async) before replaying it again, free them inside "
        "the capture, or capture with CUABI_GRAPH_AUTO_FREE_ON_LAUNCH",
        "the driver refused to replay a graph with %zu memory allocation node(s) on device %d (%s): memory it "
        "allocated in an earlier replay and did not free is still allocated",
        allocations, ordinal, cu_result_text(result).c_str());
}

}  // namespace graph
}  // namespace cuabi
