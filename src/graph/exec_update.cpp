// Whole-graph update: the executable takes the parameters of a new capture of the same sequence
// (cuGraphExecUpdate), which costs far less than instantiating again. When it cannot -- the
// topology, a node's kind or a function changed in a way the driver refuses -- cuabi says why (the
// driver's CUgraphExecUpdateResult and the node it names) and, unless told not to, instantiates
// the new capture instead, saying that it did.
//
// The executable keeps identifying its nodes by the nodes of the graph it was instantiated from,
// so after an in-place update the records take the new capture's parameters but keep the original
// node handles; after a re-instantiation the new capture becomes the graph.
#include "core/deferred_release.hpp"
#include "graph/graph.hpp"
#include "graph/conditional_nodes.hpp"
#include "graph/node_kind.hpp"
#include "range/ranges.hpp"

namespace cuabi {
namespace graph {
namespace {

const char* update_result_text(CUgraphExecUpdateResult result) {
    switch (result) {
        case CU_GRAPH_EXEC_UPDATE_SUCCESS: return "updated";
        case CU_GRAPH_EXEC_UPDATE_ERROR: return "the driver refused the update without naming a reason";
        case CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED: return "the topology changed (nodes or dependencies differ)";
        case CU_GRAPH_EXEC_UPDATE_ERROR_NODE_TYPE_CHANGED: return "a node's type changed";
        case CU_GRAPH_EXEC_UPDATE_ERROR_FUNCTION_CHANGED: return "a kernel node's function changed";
        case CU_GRAPH_EXEC_UPDATE_ERROR_PARAMETERS_CHANGED:
            return "a node's parameters changed in a way that cannot be updated (e.g. a copy's memory type or device)";
        case CU_GRAPH_EXEC_UPDATE_ERROR_NOT_SUPPORTED: return "a node cannot be updated at all";
        case CU_GRAPH_EXEC_UPDATE_ERROR_UNSUPPORTED_FUNCTION_CHANGE:
            return "a kernel node's function changed in an unsupported way";
        case CU_GRAPH_EXEC_UPDATE_ERROR_ATTRIBUTES_CHANGED: return "a node's attributes changed in an unsupported way";
    }
    return "the driver refused the update for a reason this cuabi does not know";
}

uint64_t index_of(const std::vector<Node>& nodes, CUgraphNode handle) {
    if (handle == nullptr) return UINT64_MAX;
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].handle == handle) return i;
    return UINT64_MAX;
}

// cuabi pairs nodes by position (graph/nodes.hpp); if the kinds do not line up, the records would
// describe the wrong nodes after an in-place update, so that case is refused before the driver.
bool same_kinds(const std::vector<Node>& old_nodes, const std::vector<Node>& new_nodes, UpdateOutcome* out) {
    if (old_nodes.size() != new_nodes.size()) {
        out->reason = format("the new capture has %zu nodes, the graph %zu", new_nodes.size(), old_nodes.size());
        return false;
    }
    for (size_t i = 0; i < new_nodes.size(); ++i) {
        const ConditionalNode& was = old_nodes[i].conditional;
        const ConditionalNode& is = new_nodes[i].conditional;
        if (old_nodes[i].kind == new_nodes[i].kind &&
            (was.type != is.type || was.body_count != is.body_count || was.body_nodes != is.body_nodes)) {
            out->error_node = i;
            out->reason = format("node %zu is a %s node (%u body graphs, %llu nodes in them) in the new capture but "
                                 "a %s node (%u body graphs, %llu nodes in them) in the graph",
                                 i, conditional_type_name(is.type), is.body_count,
                                 static_cast<unsigned long long>(is.body_nodes), conditional_type_name(was.type),
                                 was.body_count, static_cast<unsigned long long>(was.body_nodes));
            return false;
        }
        if (old_nodes[i].kind == new_nodes[i].kind) continue;
        out->error_node = i;
        out->reason = format("node %zu is a %s node in the new capture but a %s node in the graph", i,
                             node_kind_name(new_nodes[i].kind), node_kind_name(old_nodes[i].kind));
        return false;
    }
    return true;
}

}  // namespace

Status Graph::update_from(CUgraph captured, bool allow_reinstantiate, UpdateOutcome* out) {
    range::Scope scope(range::Phase::GraphUpdate);
    const DriverApi& api = context_->api();
    struct Owned {  // destroys the new capture on every path that does not adopt it
        const DriverApi& api;
        CUgraph graph;
        ~Owned() {
            if (graph != nullptr) destroy_graph(api, graph);
            // Whatever the update destroyed may have handed back retained buffers.
            DeferredRelease::release_queued();
        }
    } owned{api, captured};

    Status status = context_->make_current();
    if (status != CUABI_SUCCESS) return status;
    std::vector<Node> new_nodes;
    if ((status = read_nodes(context_, captured, &new_nodes)) != CUABI_SUCCESS) return status;

    std::lock_guard<Exclusive> lock(exclusive_);
    UpdateOutcome outcome;
    if (same_kinds(nodes_, new_nodes, &outcome)) {
        CUgraphExecUpdateResultInfo info{};
        CUresult result = api.cuGraphExecUpdate(exec_, captured, &info);
        if (result == CUDA_SUCCESS) {
            for (size_t i = 0; i < new_nodes.size(); ++i) new_nodes[i].handle = nodes_[i].handle;
            adopt(std::move(new_nodes));
            // The buffers the new capture's transfers touch are retained by it: keep it.
            if (update_source_ != nullptr) destroy_graph(api, update_source_);
            update_source_ = captured;
            owned.graph = nullptr;
            Counters::bump(context_->counters().graph_updates);
            *out = outcome;
            return CUABI_SUCCESS;
        }
        outcome.driver_result = static_cast<int32_t>(info.result);
        outcome.error_node = index_of(new_nodes, info.errorNode);
        outcome.reason = format("cuGraphExecUpdate refused the update with %s: %s", cu_result_text(result).c_str(),
                                update_result_text(info.result));
        if (outcome.error_node != UINT64_MAX)
            outcome.reason += format(" (node %llu, a %s node)", static_cast<unsigned long long>(outcome.error_node),
                                     node_kind_name(new_nodes[outcome.error_node].kind));
    }

    if (!allow_reinstantiate) {
        *out = outcome;
        return fail(CUABI_ERROR_GRAPH_UPDATE,
                    "capture the same sequence of calls as the graph was captured from, or allow re-instantiation "
                    "(leave out CUABI_GRAPH_UPDATE_NO_REINSTANTIATE)",
                    "the graph could not be updated in place: %s; it was left unchanged", outcome.reason.c_str());
    }
    CUgraphExec exec = nullptr;
    if ((status = instantiate(captured, &exec)) != CUABI_SUCCESS) return status;
    // Launches of the old executable still in flight finish; the driver frees it afterwards.
    api.cuGraphExecDestroy(exec_);
    destroy_graph(api, graph_);
    if (update_source_ != nullptr) destroy_graph(api, update_source_);
    exec_ = exec;
    graph_ = captured;
    update_source_ = nullptr;
    owned.graph = nullptr;
    adopt(std::move(new_nodes));
    Counters::bump(context_->counters().graph_reinstantiations);
    outcome.reinstantiated = true;
    *out = outcome;
    return CUABI_SUCCESS;
}

}  // namespace graph
}  // namespace cuabi
