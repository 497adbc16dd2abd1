// Graphs with memory nodes: a capture that allocates with cuabi_buffer_create_async and does not
// free in the same capture leaves each replay's allocation to the caller, and the driver refuses
// the next replay (CUDA_ERROR_INVALID_VALUE) until it is freed -- unless the executable frees it
// itself (CUABI_GRAPH_AUTO_FREE_ON_LAUNCH). cuabi reports that refusal as CUABI_ERROR_GRAPH_MEMORY
// with the way out, rather than as a failed launch.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <vector>

#include "core/error.hpp"
#include "graph/nodes.hpp"

namespace cuabi {
namespace graph {

// CUABI_ERROR_GRAPH_MEMORY (recorded) when the failed replay's `result` is the driver's refusal of
// a graph that allocates and was made without CUABI_GRAPH_AUTO_FREE_ON_LAUNCH (graph `flags`);
// CUABI_SUCCESS (nothing recorded) when the failure is another.
Status unfreed_allocation_refusal(CUresult result, const std::vector<Node>& nodes, uint32_t flags, int32_t ordinal);

}  // namespace graph
}  // namespace cuabi
