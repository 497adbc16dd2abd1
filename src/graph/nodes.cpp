#include "graph/nodes.hpp"

#include <cstring>
#include <new>

#include "compile/kernel_registry.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/node_kind.hpp"

namespace cuabi {
namespace graph {
namespace {

const char* const kFixDevice = "check that the device is still usable (nvidia-smi)";

// The driver's (mangled) name of a function that did not come from cuabi.
std::string function_name(const DriverApi& api, CUfunction function) {
    const char* name = nullptr;
    if (api.cuFuncGetName != nullptr && api.cuFuncGetName(&name, function) == CUDA_SUCCESS && name != nullptr)
        return name;
    return format("<function %p>", static_cast<void*>(function));  // drivers before CUDA 12.3
}

// The cuabi kernel behind the node, or a kernel object describing the foreign function.
Status kernel_of(const std::shared_ptr<Context>& context, const CUDA_KERNEL_NODE_PARAMS& params, KernelNode* node) {
    std::shared_ptr<Kernel> kernel = find_kernel(params.func);
    if (!kernel && params.kern != nullptr) kernel = find_kernel(params.kern);
    if (kernel) {
        node->kernel = std::move(kernel);
        node->from_cuabi = true;
        node->name = node->kernel->name();
        return CUABI_SUCCESS;
    }
    const DriverApi& api = context->api();
    CUfunction function = params.func;
    if (function == nullptr && params.kern != nullptr) {
        CUresult result = api.cuKernelGetFunction(&function, params.kern);
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuKernelGetFunction", kFixDevice, "for a kernel node of a captured graph");
    }
    node->name = function_name(api, function);
    // No module: the foreign code's owner keeps it loaded, as it must for its own launches.
    node->kernel = std::make_shared<Kernel>(nullptr, context, function, node->name, node->name);
    return CUABI_SUCCESS;
}

// Fills the shadow copy from the parameters the driver reports for the node: a pointer per
// parameter (kernelParams) or one packed buffer (extra).
void fill_shadow(const CUDA_KERNEL_NODE_PARAMS& params, const launch::ParamLayout& layout, KernelNode* node) {
    const size_t bytes = layout.total_bytes == 0 ? 1 : layout.total_bytes;
    const size_t count = layout.count == 0 ? 1 : layout.count;
    for (int i = 0; i < 2; ++i) {
        node->values[i].reset(new unsigned char[bytes]());
        node->pointers[i].reset(new void*[count]());
        for (uint32_t p = 0; p < layout.count; ++p) node->pointers[i][p] = node->values[i].get() + layout.slots[p].offset;
    }
    unsigned char* shadow = node->values[0].get();
    if (params.kernelParams != nullptr) {
        for (uint32_t p = 0; p < layout.count; ++p)
            std::memcpy(shadow + layout.slots[p].offset, params.kernelParams[p], layout.slots[p].size);
        return;
    }
    const void* buffer = nullptr;
    size_t buffer_size = 0;
    for (void** entry = params.extra; entry != nullptr && entry[0] != CU_LAUNCH_PARAM_END; entry += 2) {
        if (entry[0] == CU_LAUNCH_PARAM_BUFFER_POINTER) buffer = entry[1];
        if (entry[0] == CU_LAUNCH_PARAM_BUFFER_SIZE && entry[1] != nullptr) buffer_size = *static_cast<size_t*>(entry[1]);
    }
    if (buffer != nullptr) std::memcpy(shadow, buffer, buffer_size < layout.total_bytes ? buffer_size : layout.total_bytes);
}

Status read_kernel_node(const std::shared_ptr<Context>& context, CUgraphNode handle, std::unique_ptr<KernelNode>* out) {
    std::unique_ptr<KernelNode> node(new KernelNode());
    CUDA_KERNEL_NODE_PARAMS params{};
    CUresult result = context->api().cuGraphKernelNodeGetParams(handle, &params);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphKernelNodeGetParams", kFixDevice, "on device %d", context->ordinal());
    Status status = kernel_of(context, params, node.get());
    if (status != CUABI_SUCCESS) return status;
    if ((status = launch::kernel_facts(*node->kernel, &node->facts)) != CUABI_SUCCESS) return status;
    if (node->facts->layout.known) fill_shadow(params, node->facts->layout, node.get());
    node->params = params;
    node->params.kernelParams = node->has_shadow() ? node->pointers[0].get() : nullptr;
    node->params.extra = nullptr;
    *out = std::move(node);
    return CUABI_SUCCESS;
}

Status read_node(const std::shared_ptr<Context>& context, CUgraphNode handle, Node* node) {
    const DriverApi& api = context->api();
    CUgraphNodeType type = CU_GRAPH_NODE_TYPE_EMPTY;
    CUresult result = api.cuGraphNodeGetType(handle, &type);
    if (result != CUDA_SUCCESS)
        return fail_cu(result, "cuGraphNodeGetType", kFixDevice, "on device %d", context->ordinal());
    node->handle = handle;
    node->kind = node_kind(type);
    if (node->kind == CUABI_GRAPH_NODE_KERNEL) return read_kernel_node(context, handle, &node->kernel);
    ConditionalFacts facts;
    if (node->kind == CUABI_GRAPH_NODE_CONDITIONAL && find_conditional(handle, &facts)) {
        node->conditional.type = facts.type;
        node->conditional.body_count = static_cast<uint32_t>(facts.bodies.size());
        node->conditional.condition = facts.condition;
        node->conditional.body_nodes = body_node_count(api, facts.bodies);
    }
    if (node->kind == CUABI_GRAPH_NODE_MEMSET) {
        result = api.cuGraphMemsetNodeGetParams(handle, &node->memset);
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuGraphMemsetNodeGetParams", kFixDevice, "on device %d", context->ordinal());
    }
    return CUABI_SUCCESS;
}

}  // namespace

Status read_nodes(const std::shared_ptr<Context>& context, CUgraph graph, std::vector<Node>* out) {
    const DriverApi& api = context->api();
    try {
        size_t count = 0;
        CUresult result = api.cuGraphGetNodes(graph, nullptr, &count);
        std::vector<CUgraphNode> handles(count);
        if (result == CUDA_SUCCESS && count > 0) result = api.cuGraphGetNodes(graph, handles.data(), &count);
        if (result != CUDA_SUCCESS)
            return fail_cu(result, "cuGraphGetNodes", kFixDevice, "on device %d", context->ordinal());
        std::vector<Node> nodes(count);
        for (size_t i = 0; i < count; ++i) {
            Status status = read_node(context, handles[i], &nodes[i]);
            if (status != CUABI_SUCCESS) return status;
        }
        *out = std::move(nodes);
        return CUABI_SUCCESS;
    } catch (const std::bad_alloc&) {
        return fail(CUABI_ERROR_OUT_OF_HOST_MEMORY, "free host memory", "could not allocate the node list of a graph");
    }
}

}  // namespace graph
}  // namespace cuabi
