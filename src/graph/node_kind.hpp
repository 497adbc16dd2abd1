// Graph node kinds: the driver's CUgraphNodeType mapped onto cuabi's own CUABI_GRAPH_NODE_*
// constants, so that the ABI does not change when a new driver adds node types (they map to
// CUABI_GRAPH_NODE_OTHER until cuabi learns them).
#pragma once

#include <cuda.h>

#include <cstdint>

namespace cuabi {
namespace graph {

int32_t node_kind(CUgraphNodeType type);

// "kernel", "memset", ... for messages; "unknown" for CUABI_GRAPH_NODE_OTHER and bad values.
const char* node_kind_name(int32_t kind);

// "if", "while", "switch" for CUABI_GRAPH_CONDITIONAL_*; "conditional" for 0 (a node cuabi did not
// add, whose type it does not know) and bad values.
const char* conditional_type_name(int32_t type);

}  // namespace graph
}  // namespace cuabi
