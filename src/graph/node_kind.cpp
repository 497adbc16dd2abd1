#include "graph/node_kind.hpp"

#include "cuabi/cuabi.h"

namespace cuabi {
namespace graph {

int32_t node_kind(CUgraphNodeType type) {
    switch (type) {
        case CU_GRAPH_NODE_TYPE_KERNEL: return CUABI_GRAPH_NODE_KERNEL;
        case CU_GRAPH_NODE_TYPE_MEMCPY: return CUABI_GRAPH_NODE_MEMCPY;
        case CU_GRAPH_NODE_TYPE_MEMSET: return CUABI_GRAPH_NODE_MEMSET;
        case CU_GRAPH_NODE_TYPE_HOST: return CUABI_GRAPH_NODE_HOST;
        case CU_GRAPH_NODE_TYPE_GRAPH: return CUABI_GRAPH_NODE_CHILD_GRAPH;
        case CU_GRAPH_NODE_TYPE_EMPTY: return CUABI_GRAPH_NODE_EMPTY;
        case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return CUABI_GRAPH_NODE_EVENT_WAIT;
        case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return CUABI_GRAPH_NODE_EVENT_RECORD;
        case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL: return CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL;
        case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT: return CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT;
        case CU_GRAPH_NODE_TYPE_MEM_ALLOC: return CUABI_GRAPH_NODE_MEM_ALLOC;
        case CU_GRAPH_NODE_TYPE_MEM_FREE: return CUABI_GRAPH_NODE_MEM_FREE;
        case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP: return CUABI_GRAPH_NODE_BATCH_MEM_OP;
        case CU_GRAPH_NODE_TYPE_CONDITIONAL: return CUABI_GRAPH_NODE_CONDITIONAL;
        default: return CUABI_GRAPH_NODE_OTHER;  // a node type newer than this cuabi
    }
}

const char* node_kind_name(int32_t kind) {
    switch (kind) {
        case CUABI_GRAPH_NODE_KERNEL: return "kernel";
        case CUABI_GRAPH_NODE_MEMCPY: return "memcpy";
        case CUABI_GRAPH_NODE_MEMSET: return "memset";
        case CUABI_GRAPH_NODE_HOST: return "host";
        case CUABI_GRAPH_NODE_CHILD_GRAPH: return "child graph";
        case CUABI_GRAPH_NODE_EMPTY: return "empty";
        case CUABI_GRAPH_NODE_EVENT_WAIT: return "event wait";
        case CUABI_GRAPH_NODE_EVENT_RECORD: return "event record";
        case CUABI_GRAPH_NODE_EXT_SEMAPHORE_SIGNAL: return "external semaphore signal";
        case CUABI_GRAPH_NODE_EXT_SEMAPHORE_WAIT: return "external semaphore wait";
        case CUABI_GRAPH_NODE_MEM_ALLOC: return "memory allocation";
        case CUABI_GRAPH_NODE_MEM_FREE: return "memory free";
        case CUABI_GRAPH_NODE_BATCH_MEM_OP: return "batch memory operation";
        case CUABI_GRAPH_NODE_CONDITIONAL: return "conditional";
        default: return "unknown";
    }
}

const char* conditional_type_name(int32_t type) {
    switch (type) {
        case CUABI_GRAPH_CONDITIONAL_IF: return "if";
        case CUABI_GRAPH_CONDITIONAL_WHILE: return "while";
        case CUABI_GRAPH_CONDITIONAL_SWITCH: return "switch";
        default: return "conditional";
    }
}

}  // namespace graph
}  // namespace cuabi
