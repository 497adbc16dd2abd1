// What cuabi knows of the conditional nodes it added (graph/conditional.hpp): the driver reports a
// node's type but not a conditional node's parameters, so the inventory reads them here. Filed by
// node under the root graph that holds it, and forgotten when that graph is destroyed -- which is
// why every graph cuabi owns is destroyed through destroy_graph(), so that a node handle the
// driver hands out again later is never described by a dead node's facts.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "driver/driver_api.hpp"

namespace cuabi {
namespace graph {

struct ConditionalFacts {
    int32_t type = 0;  // CUABI_GRAPH_CONDITIONAL_*
    uint64_t condition = 0;
    std::vector<CUgraph> bodies;  // owned by the node
};

// Files `facts` for `node`, a node of `root` or of a body inside it. Throws std::bad_alloc.
void remember_conditional(CUgraph root, CUgraphNode node, ConditionalFacts facts);

// The facts of `node`; false for a node cuabi did not add (a foreign capture's).
bool find_conditional(CUgraphNode node, ConditionalFacts* out);

// The nodes in `bodies`, nested bodies included (0 where the driver cannot count them).
uint64_t body_node_count(const DriverApi& api, const std::vector<CUgraph>& bodies);

// cuGraphDestroy(graph), forgetting the conditional nodes filed under it first.
void destroy_graph(const DriverApi& api, CUgraph graph) noexcept;

}  // namespace graph
}  // namespace cuabi
