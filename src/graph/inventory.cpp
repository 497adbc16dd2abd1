// The inventory of a graph: what each node is, read from the records kept by the graph (no driver
// call), so it reflects cuabi's own updates, which the driver cannot report for an executable.
#include "graph/graph.hpp"

namespace cuabi {
namespace graph {

size_t Graph::node_count() {
    std::lock_guard<Exclusive> lock(exclusive_);
    return nodes_.size();
}

Status Graph::node_info(size_t index, NodeInfo* out) {
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    Status status = node_of_kind(index, -1, "describe", &node);
    if (status != CUABI_SUCCESS) return status;
    NodeInfo info;
    info.kind = node->kind;
    if (node->kernel) {
        const KernelNode& kernel = *node->kernel;
        const CUDA_KERNEL_NODE_PARAMS& p = kernel.params;
        for (const auto& entry : kernel_handles_)
            if (entry.first == kernel.kernel.get()) info.kernel = entry.second;
        info.grid[0] = p.gridDimX;
        info.grid[1] = p.gridDimY;
        info.grid[2] = p.gridDimZ;
        info.block[0] = p.blockDimX;
        info.block[1] = p.blockDimY;
        info.block[2] = p.blockDimZ;
        info.shared_memory_bytes = p.sharedMemBytes;
        const launch::ParamLayout& layout = kernel.facts->layout;
        info.param_count = layout.known ? layout.count : CUABI_GRAPH_PARAM_COUNT_UNKNOWN;
        info.param_bytes = layout.known ? layout.total_bytes : 0;
    } else if (node->kind == CUABI_GRAPH_NODE_MEMSET) {
        info.memset_value = node->memset.value;
        info.memset_element_size = node->memset.elementSize;
    } else if (node->kind == CUABI_GRAPH_NODE_CONDITIONAL) {
        info.conditional = node->conditional;
    }
    *out = info;
    return CUABI_SUCCESS;
}

Status Graph::node_kernel_name(size_t index, std::string* out) {
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    Status status = node_of_kind(index, CUABI_GRAPH_NODE_KERNEL, "name the kernel of", &node);
    if (status != CUABI_SUCCESS) return status;
    try {
        *out = node->kernel->name;
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not copy a kernel name");
    }
    return CUABI_SUCCESS;
}

Status Graph::node_param_info(size_t index, size_t param, size_t* out_offset, size_t* out_size) {
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    Status status = node_of_kind(index, CUABI_GRAPH_NODE_KERNEL, "describe the parameters of", &node);
    if (status != CUABI_SUCCESS) return status;
    const KernelNode& kernel = *node->kernel;
    const launch::ParamLayout& layout = kernel.facts->layout;
    if (!layout.known)
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.4 or newer",
                    "the parameter layout of kernel '%s' (node %zu) is unknown: the driver has no cuFuncGetParamInfo",
                    kernel.name.c_str(), index);
    if (param >= layout.count)
        return fail(CUABI_ERROR_OUT_OF_BOUNDS, "pass a parameter index below the node's param_count",
                    "kernel '%s' (node %zu) has %u parameters; there is no parameter %zu", kernel.name.c_str(), index,
                    layout.count, param);
    *out_offset = layout.slots[param].offset;
    *out_size = layout.slots[param].size;
    return CUABI_SUCCESS;
}

}  // namespace graph
}  // namespace cuabi
