#include "graph/conditional_nodes.hpp"

#include <algorithm>
#include <mutex>

namespace cuabi {
namespace graph {
namespace {

struct Filed {
    CUgraph root;
    CUgraphNode node;
    ConditionalFacts facts;
};

struct Registry {
    std::mutex mutex;
    std::vector<Filed> nodes;
};

Registry& registry() {
    static Registry* filed = new Registry();  // never destroyed: graphs die in static destructors too
    return *filed;
}

}  // namespace

void remember_conditional(CUgraph root, CUgraphNode node, ConditionalFacts facts) {
    Registry& filed = registry();
    std::lock_guard<std::mutex> lock(filed.mutex);
    filed.nodes.push_back(Filed{root, node, std::move(facts)});
}

bool find_conditional(CUgraphNode node, ConditionalFacts* out) {
    Registry& filed = registry();
    std::lock_guard<std::mutex> lock(filed.mutex);
    for (const Filed& entry : filed.nodes)
        if (entry.node == node) {
            *out = entry.facts;
            return true;
        }
    return false;
}

uint64_t body_node_count(const DriverApi& api, const std::vector<CUgraph>& bodies) {
    uint64_t total = 0;
    for (CUgraph body : bodies) {
        size_t count = 0;
        if (api.cuGraphGetNodes(body, nullptr, &count) != CUDA_SUCCESS) continue;
        std::vector<CUgraphNode> nodes(count);
        if (count > 0 && api.cuGraphGetNodes(body, nodes.data(), &count) != CUDA_SUCCESS) continue;
        total += count;
        for (CUgraphNode node : nodes) {
            ConditionalFacts nested;
            if (find_conditional(node, &nested)) total += body_node_count(api, nested.bodies);
        }
    }
    return total;
}

void destroy_graph(const DriverApi& api, CUgraph graph) noexcept {
    if (graph == nullptr) return;
    {
        Registry& filed = registry();
        std::lock_guard<std::mutex> lock(filed.mutex);
        filed.nodes.erase(std::remove_if(filed.nodes.begin(), filed.nodes.end(),
                                         [graph](const Filed& entry) { return entry.root == graph; }),
                          filed.nodes.end());
    }
    api.cuGraphDestroy(graph);
}

}  // namespace graph
}  // namespace cuabi
