// Conditional graph nodes, captured on the capturing stream itself.
//
// The driver adds a conditional node to a graph (cuGraphAddNode) and hands back its empty body
// graphs; a stream can capture into an existing graph (cuStreamBeginCaptureToGraph). So opening a
// node adds it after the work captured so far, ends the stream's capture of the enclosing graph
// and begins one into the first body; closing ends the body's capture and begins one into the
// enclosing graph again, after the node. From the first node on, cuabi holds the root graph (the
// one the capture began with) between these captures: the record of the capture says so
// (graph/owned_captures.hpp), follows it from capture id to capture id, and every failure path
// destroys the root with its bodies. The facts of each node are filed for the inventory
// (graph/conditional_nodes.hpp).
//
// A condition is made for the graph the stream captures into at that moment and may only open a
// node in that graph: the driver would otherwise refuse later, or the node would test another
// graph's value; cuabi checks it first and says which graph the condition belongs to.
#pragma once

#include <cstdint>

#include "core/error.hpp"
#include "device/stream.hpp"

namespace cuabi {
namespace graph {

// The checks that need no driver: a known type (CUABI_GRAPH_CONDITIONAL_*) and a body count it
// allows (INVALID_ARGUMENT).
Status check_conditional_shape(int32_t type, uint32_t body_count);

// Whether a driver of CUDA version `driver_version` (13000 for 13.0), with the optional entry
// points present or not, runs a `type` node of `body_count` bodies: UNSUPPORTED naming the version
// needed (12.3 for conditional nodes, 12.8 for switch nodes and if nodes with an else body).
Status check_conditional_driver(int driver_version, bool entry_points, int32_t type, uint32_t body_count);

// cuabi_graph_condition_create: CUABI_GRAPH_CONDITION_* flags already checked.
Status create_condition(const Stream& stream, uint32_t default_value, uint32_t flags, uint64_t* out_condition);

Status begin_conditional(const Stream& stream, uint64_t condition, int32_t type, uint32_t body_count);
Status next_conditional_body(const Stream& stream);
Status end_conditional(const Stream& stream);

}  // namespace graph
}  // namespace cuabi
