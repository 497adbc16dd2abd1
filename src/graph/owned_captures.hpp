// The captures cuabi began and has not ended, by the driver's capture id (unique in the process),
// with what cuabi must know to end them: their mode, and the conditional nodes whose bodies they
// are capturing (graph/conditional.hpp).
//
// A conditional body is captured on the same stream: cuabi ends the capture of the enclosing graph
// and begins one into the body, which has a new id, so the record moves to that id
// (take + put). While a body is captured, the graph the capture began with -- the root, which
// will become the cuabi graph -- is held by cuabi, not by a capture: ending the capture after a
// failure must destroy it (discard_root), and buffers the body uses are retained by it.
#pragma once

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <utility>
#include <vector>

#include "driver/driver_api.hpp"

namespace cuabi {
namespace graph {

// A conditional node whose bodies the capture is inside.
struct OpenConditional {
    CUgraph graph = nullptr;     // the graph the node was added to: the root or an enclosing body
    CUgraphNode node = nullptr;
    int32_t type = 0;            // CUABI_GRAPH_CONDITIONAL_*
    std::vector<CUgraph> bodies; // owned by the node
    uint32_t body = 0;           // the body being captured
};

struct CaptureRecord {
    CUstreamCaptureMode mode = CU_STREAM_CAPTURE_MODE_GLOBAL;
    // The graph the capture began with once cuabi holds it (from the first conditional on), else
    // NULL: the capture itself holds it.
    CUgraph root = nullptr;
    std::vector<OpenConditional> open;  // outermost first
    // The conditions cuabi_graph_condition_create made in this capture, with the graph of each.
    std::vector<std::pair<CUgraph, uint64_t>> conditions;
};

class OwnedCaptures {
public:
    // The launch layer learns how many there are: while any is in progress, launches hand their
    // pointer-sized arguments to retain_argument_buffers (launch/capture_retention.hpp).
    void add(uint64_t id, CaptureRecord record);
    bool contains(uint64_t id) const;
    void remove(uint64_t id) noexcept;
    // The record of `id`, removed (false when `id` is not cuabi's); put() files it under an id.
    bool take(uint64_t id, CaptureRecord* out);
    void put(uint64_t id, CaptureRecord record);
    // The graph that keeps alive what capture `id` uses: the root while a body is captured,
    // `captured` (the capture's own graph) otherwise. Costs one atomic load unless a body is open.
    CUgraph keeper(uint64_t id, CUgraph captured) const;

private:
    void publish_count() noexcept;

    mutable std::mutex mutex_;
    std::vector<std::pair<uint64_t, CaptureRecord>> records_;
    std::atomic<uint32_t> holding_roots_{0};  // records with a root: keeper() looks only then
};

OwnedCaptures& owned();

// Ends a failed or abandoned capture's record: destroys the root cuabi holds for it (with every
// body in it), and releases the buffers it kept alive.
void discard_root(const CaptureRecord& record, const DriverApi& api);

}  // namespace graph
}  // namespace cuabi
