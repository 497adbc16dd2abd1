// The destroy functions of the handles whose release needs nothing but the handle: each lets go of
// the handle (the object lives on while other objects depend on it), accepts NULL and any invalid
// handle, and leaves the thread's last error as it was (core/handle_table.hpp). Contexts and
// streams, which drop cached graphs and captures first, are destroyed beside their other calls.
#include "api/guard.hpp"
#include "core/handle_table.hpp"
#include "cuabi/cuabi.h"

using namespace cuabi;

extern "C" {

CUABI_API void cuabi_event_destroy(cuabi_event* event) try {
    destroy_any_handle(event, HandleType::Event);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_buffer_destroy(cuabi_buffer* buffer) try {
    destroy_any_handle(buffer, HandleType::Buffer);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_host_memory_destroy(cuabi_host_memory* memory) try {
    destroy_any_handle(memory, HandleType::HostMemory);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_memory_pool_destroy(cuabi_memory_pool* pool) try {
    destroy_any_handle(pool, HandleType::MemoryPool);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_module_destroy(cuabi_module* module) try {
    destroy_any_handle(module, HandleType::Module);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_kernel_destroy(cuabi_kernel* kernel) try {
    destroy_any_handle(kernel, HandleType::Kernel);
} catch (...) {
    guard::swallowed();
}

CUABI_API void cuabi_graph_destroy(cuabi_graph* graph) try {
    destroy_any_handle(graph, HandleType::Graph);
} catch (...) {
    guard::swallowed();
}

}  // extern "C"
