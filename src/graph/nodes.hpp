// What a graph knows about each of its nodes, read once from the driver when the graph is built
// (or rebuilt by a whole-graph update) and then kept current by cuabi's own updates.
//
// The executable graph has no getters, so for kernel nodes cuabi keeps a shadow copy of the
// arguments: the inventory and geometry updates read it, and argument updates write it. It has two
// buffers: an update is built in the spare one, handed to the driver, and becomes current only
// when the driver accepted it; the driver's own parameter memory is never touched.
//
// Order: nodes are listed in the order cuGraphGetNodes returns them, which is the order they were
// added to the graph -- for a capture, the order of the captured calls. Every node therefore comes
// after the nodes it depends on, and two captures of the same sequence list their nodes alike.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>
#include <vector>

#include "compile/kernel.hpp"
#include "core/error.hpp"
#include "launch/kernel_facts.hpp"

namespace cuabi {
namespace graph {

struct KernelNode {
    // As the executable has it; kernelParams points into args[current], extra is NULL.
    CUDA_KERNEL_NODE_PARAMS params{};
    // The kernel: the cuabi kernel when the node came from cuabi (from_cuabi), otherwise a kernel
    // object made for the foreign function so that launch's facts and checks apply to it too.
    std::shared_ptr<Kernel> kernel;
    bool from_cuabi = false;
    launch::KernelFacts* facts = nullptr;  // owned by `kernel`
    std::string name;                      // for messages and the inventory

    // The shadow copy (empty when the layout is unknown, which makes the node's arguments and
    // geometry read-only: cuabi could not rebuild its parameters).
    std::unique_ptr<unsigned char[]> values[2];
    std::unique_ptr<void*[]> pointers[2];
    int current = 0;

    bool has_shadow() const { return pointers[0] != nullptr; }
};

// A conditional node cuabi added (graph/conditional_nodes.hpp); zero for a foreign capture's.
struct ConditionalNode {
    int32_t type = 0;  // CUABI_GRAPH_CONDITIONAL_*
    uint32_t body_count = 0;
    uint64_t condition = 0;
    uint64_t body_nodes = 0;  // nested bodies included
};

struct Node {
    CUgraphNode handle = nullptr;  // a node of the graph the executable was instantiated from
    int32_t kind = 0;              // CUABI_GRAPH_NODE_*
    std::unique_ptr<KernelNode> kernel;  // kind == CUABI_GRAPH_NODE_KERNEL
    CUDA_MEMSET_NODE_PARAMS memset{};    // kind == CUABI_GRAPH_NODE_MEMSET, as the executable has it
    ConditionalNode conditional;         // kind == CUABI_GRAPH_NODE_CONDITIONAL
};

// Reads every node of `graph` in the documented order. `context` must be current and is the
// context foreign kernels are described in.
Status read_nodes(const std::shared_ptr<Context>& context, CUgraph graph, std::vector<Node>* out);

}  // namespace graph
}  // namespace cuabi
