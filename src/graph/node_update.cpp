// Updates of single nodes of the executable graph: a kernel node's arguments (table or packed) and
// geometry, a memset node's value. Each is validated exactly like a launch, by launch/'s own
// checks against the kernel's facts, before the driver sees it.
//
// Argument updates are on the hot path of "capture once, replay with new pointers": they allocate
// nothing. The new arguments are written into the spare shadow buffer and become current only when
// the driver accepted them, so a refused update leaves the node exactly as it was.
#include <cstring>

#include "device/buffer_directory.hpp"
#include "graph/graph.hpp"
#include "launch/capture_retention.hpp"
#include "launch/geometry.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace graph {

Status Graph::updatable_kernel(size_t index, const char* operation, KernelNode** out) {
    Node* node = nullptr;
    Status status = node_of_kind(index, CUABI_GRAPH_NODE_KERNEL, operation, &node);
    if (status != CUABI_SUCCESS) return status;
    KernelNode& kernel = *node->kernel;
    if (!kernel.has_shadow())
        return fail(CUABI_ERROR_UNSUPPORTED, "install an NVIDIA driver for CUDA 12.4 or newer",
                    "cannot %s node %zu: the parameter layout of kernel '%s' is unknown (the driver has no "
                    "cuFuncGetParamInfo), so cuabi cannot rebuild its parameters",
                    operation, index, kernel.name.c_str());
    *out = &kernel;
    return CUABI_SUCCESS;
}

Status Graph::set_kernel_params(size_t index, const CUDA_KERNEL_NODE_PARAMS& params, const char* what) {
    KernelNode& kernel = *nodes_[index].kernel;
    CUresult result = context_->api().cuGraphExecKernelNodeSetParams(exec_, nodes_[index].handle, &params);
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_GRAPH_UPDATE, result,
                                   "check the new values; the node keeps its previous ones",
                                   "cuGraphExecKernelNodeSetParams failed with %s updating the %s of kernel '%s' "
                                   "(node %zu)",
                                   cu_result_text(result).c_str(), what, kernel.name.c_str(), index);
    kernel.params = params;
    Counters::bump(context_->counters().graph_updates);
    return CUABI_SUCCESS;
}

// The spare half of the node's shadow copy holds the new arguments: point the node at it, and make
// it current only once the driver accepted it.
Status Graph::publish_spare_arguments(size_t index, KernelNode* kernel) {
    const int spare = 1 - kernel->current;
    CUDA_KERNEL_NODE_PARAMS params = kernel->params;
    params.kernelParams = kernel->pointers[spare].get();
    Status status = set_kernel_params(index, params, "arguments");
    if (status == CUABI_SUCCESS) kernel->current = spare;
    return status;
}

void Graph::retain_reached_buffers(const launch::ParamLayout& layout, const cuabi_kernel_arg* table, size_t count,
                                   const void* packed) {
    uint64_t values[launch::kMaxTableArguments];
    const size_t found = launch::pointer_sized_values(layout, table, count, packed, values, launch::kMaxTableArguments);
    for (size_t i = 0; i < found; ++i) {
        // An update usually passes buffers the graph already keeps (those of its capture, or of
        // the update before): then the directory -- a lock and a reference count -- is not asked.
        if (reaches_kept_buffer(values[i])) continue;
        std::shared_ptr<const Buffer> buffer = buffer_directory::find(cu_context_, values[i]);
        if (buffer == nullptr) continue;
        updated_ranges_.push_back({buffer->address(), buffer->size()});
        bool held = false;
        for (const auto& kept : retained_buffers_) held = held || kept == buffer;
        if (!held) retained_buffers_.push_back(std::move(buffer));
    }
}

bool Graph::reaches_kept_buffer(uint64_t address) const {
    for (const AddressRange& range : updated_ranges_)
        if (address - range.address < range.size) return true;
    return false;
}

Status Graph::update_kernel_args(size_t index, const cuabi_kernel_arg* args, size_t count) {
    range::Scope scope(range::Phase::GraphUpdate);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    KernelNode* kernel = nullptr;
    if ((status = updatable_kernel(index, "update the arguments of", &kernel)) != CUABI_SUCCESS) return status;
    const launch::ParamLayout& layout = kernel->facts->layout;
    if ((status = launch::check_arguments(kernel->name.c_str(), layout, args, count)) != CUABI_SUCCESS) return status;
    unsigned char* values = kernel->values[1 - kernel->current].get();
    for (uint32_t i = 0; i < layout.count; ++i)
        std::memcpy(values + layout.slots[i].offset, args[i].value, layout.slots[i].size);
    retain_reached_buffers(layout, args, count, nullptr);
    return publish_spare_arguments(index, kernel);
}

Status Graph::update_kernel_args_packed(size_t index, const void* packed, size_t packed_size) {
    range::Scope scope(range::Phase::GraphUpdate);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    KernelNode* kernel = nullptr;
    if ((status = updatable_kernel(index, "update the arguments of", &kernel)) != CUABI_SUCCESS) return status;
    const launch::ParamLayout& layout = kernel->facts->layout;
    if ((status = launch::check_packed(kernel->name.c_str(), layout, packed, packed_size)) != CUABI_SUCCESS)
        return status;
    if (layout.total_bytes > 0) std::memcpy(kernel->values[1 - kernel->current].get(), packed, layout.total_bytes);
    retain_reached_buffers(layout, nullptr, 0, packed);
    return publish_spare_arguments(index, kernel);
}

Status Graph::update_kernel_geometry(size_t index, const uint32_t grid[3], const uint32_t block[3],
                                     uint32_t shared_bytes) {
    range::Scope scope(range::Phase::GraphUpdate);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    KernelNode* kernel = nullptr;
    if ((status = updatable_kernel(index, "update the geometry of", &kernel)) != CUABI_SUCCESS) return status;
    const char* name = kernel->name.c_str();
    const launch::KernelFacts& facts = *kernel->facts;
    launch::Shape shape;
    for (int i = 0; i < 3; ++i) {
        shape.grid[i] = grid[i];
        shape.block[i] = block[i];
    }
    shape.dynamic_shared_bytes = shared_bytes;
    launch::Geometry geometry;
    status = launch::check_geometry(name, facts.device, facts.limits, shape, &geometry);
    if (status == CUABI_SUCCESS) status = launch::check_shared_memory(name, facts.device, facts.limits, shared_bytes);
    // Kernels with compile-time cluster dimensions need a grid that is a multiple of them.
    if (status == CUABI_SUCCESS) status = launch::check_cluster_shape(name, facts.device, facts.limits, shape);
    if (status == CUABI_SUCCESS) status = launch::ensure_dynamic_shared(*kernel->kernel, *kernel->facts, shared_bytes);
    if (status != CUABI_SUCCESS) return status;
    CUDA_KERNEL_NODE_PARAMS params = kernel->params;
    params.gridDimX = grid[0];
    params.gridDimY = grid[1];
    params.gridDimZ = grid[2];
    params.blockDimX = block[0];
    params.blockDimY = block[1];
    params.blockDimZ = block[2];
    params.sharedMemBytes = shared_bytes;
    return set_kernel_params(index, params, "geometry");
}

Status Graph::update_memset_value(size_t index, uint32_t value) {
    range::Scope scope(range::Phase::GraphUpdate);
    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::lock_guard<Exclusive> lock(exclusive_);
    Node* node = nullptr;
    if ((status = node_of_kind(index, CUABI_GRAPH_NODE_MEMSET, "update the value of", &node)) != CUABI_SUCCESS)
        return status;
    const unsigned element_size = node->memset.elementSize;
    if (element_size < 4 && (value >> (8 * element_size)) != 0)
        return fail(CUABI_ERROR_INVALID_ARGUMENT, "pass a value that fits the node's element size",
                    "value 0x%x does not fit the %u-byte elements of memset node %zu (at most 0x%x)", value,
                    element_size, index, (1u << (8 * element_size)) - 1u);
    CUDA_MEMSET_NODE_PARAMS params = node->memset;
    params.value = value;
    CUresult result =
        context_->api().cuGraphExecMemsetNodeSetParams(exec_, node->handle, &params, context_->cu_context());
    if (result != CUDA_SUCCESS)
        return fail_with_cu_result(CUABI_ERROR_GRAPH_UPDATE, result,
                                   "check the value; the node keeps its previous one",
                                   "cuGraphExecMemsetNodeSetParams failed with %s setting memset node %zu to 0x%x",
                                   cu_result_text(result).c_str(), index, value);
    node->memset = params;
    Counters::bump(context_->counters().graph_updates);
    return CUABI_SUCCESS;
}

}  // namespace graph
}  // namespace cuabi
